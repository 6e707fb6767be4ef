package io.ambergarden.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ErrorCollectorTest {

  private final ErrorCollector collector = new ErrorCollector();

  private void addErrors(int n) {
    for (int i = 0; i < n; i++) {
      collector.error(i, "f" + i, "bad");
    }
  }

  @Test
  void keepsErrorsInTheOrderTheyCameUpToTheCap() {
    addErrors(EventParser.MAX_ERRORS);
    assertThat(collector.errors).hasSize(EventParser.MAX_ERRORS);
    assertThat(collector.errors.get(0)).isEqualTo(new FieldError(0, "f0", "bad"));
    assertThat(collector.errors.get(99)).isEqualTo(new FieldError(99, "f99", "bad"));
    assertThat(collector.capped).isFalse();
  }

  @Test
  void oneErrorPastTheCapBecomesTheNoteAndUnwinds() {
    addErrors(EventParser.MAX_ERRORS);
    assertThatThrownBy(() -> collector.error(100, "x", "bad"))
        .isSameAs(ErrorCollector.CapReached.INSTANCE);
    assertThat(collector.capped).isTrue();
    assertThat(collector.errors)
        .hasSize(EventParser.MAX_ERRORS + 1)
        .last()
        .isEqualTo(new FieldError(-1, FieldError.DOCUMENT, EventParser.MSG_TOO_MANY_ERRORS));
  }

  @Test
  void errorsAfterTheNoteAreDroppedQuietly() {
    addErrors(EventParser.MAX_ERRORS);
    assertThatThrownBy(() -> collector.error(100, "x", "bad"))
        .isInstanceOf(ErrorCollector.CapReached.class);
    collector.error(101, "y", "bad");
    assertThat(collector.errors).hasSize(EventParser.MAX_ERRORS + 1);
  }

  @Test
  void theUnwindCarriesNoStackTrace() {
    assertThat(ErrorCollector.CapReached.INSTANCE.getStackTrace()).isEmpty();
  }

  @Test
  void betweenEventsForgetsTheEventAndField() {
    collector.eventIndex = 4;
    collector.currentField = "ts";
    collector.betweenEvents();
    assertThat(collector.eventIndex).isEqualTo(-1);
    assertThat(collector.currentField).isNull();
  }
}
