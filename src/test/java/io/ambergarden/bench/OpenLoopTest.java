package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OpenLoopTest {
  static final long MS = 1_000_000L;

  @Test
  void requestsAreDueAtTheRateFromTheStart() {
    OpenLoop loop = new OpenLoop(100, 5_000 * MS);

    assertThat(loop.dueNanos(0)).isEqualTo(5_000 * MS);
    assertThat(loop.dueNanos(1)).isEqualTo(5_010 * MS);
    assertThat(loop.dueNanos(250)).isEqualTo(7_500 * MS);
    assertThat(loop.waitNanos(1, 5_004 * MS)).isEqualTo(6 * MS);
    assertThat(loop.waitNanos(1, 5_020 * MS)).isZero();
  }

  @Test
  void aStalledSenderDoesNotHideTheWaitOfTheRequestsBehindIt() {
    OpenLoop loop = new OpenLoop(100, 0);
    // the sender stalled for a second: request 50, due at 0.5 s, went out at 1.0 s and was
    // answered 10 ms later
    long sentAt = 1_000 * MS;
    long answeredAt = sentAt + 10 * MS;

    assertThat(loop.latencyNanos(50, answeredAt)).isEqualTo(510 * MS);
    // measured from the send it would look like 10 ms: the coordinated omission this corrects
    assertThat(answeredAt - sentAt).isEqualTo(10 * MS);
    // by then 101 requests were due (0 to 100), so the sender knows how far behind it is
    assertThat(loop.dueBy(sentAt)).isEqualTo(101);
  }

  @Test
  void nothingIsDueBeforeTheStartAndTheRateMustBePositive() {
    OpenLoop loop = new OpenLoop(1_000, 100 * MS);

    assertThat(loop.dueBy(99 * MS)).isZero();
    assertThat(loop.dueBy(100 * MS)).isEqualTo(1);
    assertThatThrownBy(() -> new OpenLoop(0, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new OpenLoop(Double.NaN, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
