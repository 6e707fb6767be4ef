package io.ambergarden.counter;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AppliedPartsTest {
  private static final LocalDate DAY = LocalDate.of(2026, 12, 7);

  private static CounterCoalescer.Update update(String device, long delta) {
    return new CounterCoalescer.Update(
        new CounterCell.DeviceHour(DAY, 0, device, 0, "none"), delta);
  }

  private static final List<CounterCoalescer.Update> ALL =
      List.of(update("a", 3), update("b", 5), update("c", 7));

  @Test
  void aPartSentAgainAfterAPartialFailureAppliesOnlyWhatDidNotSucceed() {
    AppliedParts parts = new AppliedParts(10, 10);
    assertThat(parts.start("journal-1-1000#0", () -> ALL))
        .isEqualTo(new AppliedParts.Apply(ALL, false));
    parts.finish("journal-1-1000#0", List.of(update("b", 5)));

    assertThat(parts.start("journal-1-1000#0", () -> ALL))
        .isEqualTo(new AppliedParts.Apply(List.of(update("b", 5)), true));
    parts.finish("journal-1-1000#0", List.of());

    assertThat(parts.start("journal-1-1000#0", () -> ALL)).isInstanceOf(AppliedParts.Done.class);
  }

  @Test
  void aPartStillBeingAppliedIsNotAppliedTwice() {
    AppliedParts parts = new AppliedParts(10, 10);
    parts.start("p", () -> ALL);
    assertThat(parts.start("p", () -> ALL)).isInstanceOf(AppliedParts.InProgress.class);
    parts.finish("p", ALL);
    assertThat(parts.start("p", () -> ALL)).isEqualTo(new AppliedParts.Apply(ALL, true));
  }

  @Test
  void anAbandonedPartStartsAgainWhole() {
    AppliedParts parts = new AppliedParts(10, 10);
    parts.start("p", () -> ALL);
    parts.abandon("p");
    assertThat(parts.start("p", () -> ALL)).isEqualTo(new AppliedParts.Apply(ALL, false));
  }

  @Test
  void beyondItsLimitsTheOldestPartsAreForgottenAndAppliedWholeAgain() {
    AppliedParts parts = new AppliedParts(2, 2);
    for (String p : List.of("d1", "d2", "d3")) {
      parts.start(p, () -> ALL);
      parts.finish(p, List.of());
    }
    AtomicInteger built = new AtomicInteger();
    assertThat(
            parts.start(
                "d1",
                () -> {
                  built.incrementAndGet();
                  return ALL;
                }))
        .isEqualTo(new AppliedParts.Apply(ALL, false));
    assertThat(built).hasValue(1);
    assertThat(parts.start("d3", () -> ALL)).isInstanceOf(AppliedParts.Done.class);

    for (String p : List.of("r1", "r2", "r3")) {
      parts.start(p, () -> ALL);
      parts.finish(p, List.of(update(p, 1)));
    }
    assertThat(parts.remainders()).isEqualTo(2);
    assertThat(parts.start("r1", () -> ALL)).isEqualTo(new AppliedParts.Apply(ALL, false));
    assertThat(parts.start("r3", () -> ALL))
        .isEqualTo(new AppliedParts.Apply(List.of(update("r3", 1)), true));
  }

  @Test
  void limitsMustBePositive() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new AppliedParts(0, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
