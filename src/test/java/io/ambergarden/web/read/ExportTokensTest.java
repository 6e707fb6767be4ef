package io.ambergarden.web.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ExportTokensTest {
  @Test
  void anExportOwesOneTokenPerThousandEventsRead() {
    ExportTokens t = new ExportTokens(1000);
    t.read(999);
    assertThat(t.owed()).isZero();
    t.read(1);
    assertThat(t.owed()).isEqualTo(1);
    t.read(2500);
    assertThat(t.owed()).isEqualTo(3);
  }

  @Test
  void takenTokensAreNotOwedAgain() {
    ExportTokens t = new ExportTokens(1000);
    t.read(3000);
    t.took();
    t.took();
    assertThat(t.owed()).isEqualTo(1);
    t.took();
    assertThat(t.owed()).isZero();
    t.read(999);
    assertThat(t.owed()).isZero();
    t.read(1);
    assertThat(t.owed()).isEqualTo(1);
    assertThat(t.events()).isEqualTo(4000);
  }

  @Test
  void takingATokenThatIsNotOwedFails() {
    ExportTokens t = new ExportTokens(1000);
    t.read(10);
    assertThatThrownBy(t::took).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aNegativeCountOrABadRateIsRefused() {
    assertThatThrownBy(() -> new ExportTokens(0)).isInstanceOf(IllegalArgumentException.class);
    ExportTokens t = new ExportTokens(1);
    assertThatThrownBy(() -> t.read(-1)).isInstanceOf(IllegalArgumentException.class);
  }
}
