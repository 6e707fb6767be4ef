package io.ambergarden.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import org.junit.jupiter.api.Test;

class ParseRunTest {

  private static final EventLimits LIMITS = EventLimits.defaults();

  @Test
  void theTsWindowRunsFromNowMinusRetentionToNowPlusSkew() {
    ParseRun run = new ParseRun(Events.NOW, false, LIMITS);
    assertThat(run.minTs).isEqualTo(Events.NOW - LIMITS.retentionMillis());
    assertThat(run.maxTs).isEqualTo(Events.NOW + LIMITS.futureSkewMillis());
  }

  @Test
  void theTsWindowSaturatesInsteadOfOverflowing() {
    assertThat(new ParseRun(Long.MAX_VALUE - 1, false, LIMITS).maxTs).isEqualTo(Long.MAX_VALUE);
    assertThat(new ParseRun(Long.MIN_VALUE + 1, false, LIMITS).minTs).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void batchTooLargeReplacesTheEventsAndErrorsWithOneError() {
    ParseRun run = new ParseRun(Events.NOW, false, LIMITS);
    run.events.add(new Event("d", Events.NOW, ""));
    run.error(3, "ts", "bad");
    run.tooLarge("batch too large: more than 2 events");
    assertThat(run.events).isEmpty();
    assertThat(run.errors)
        .containsExactly(
            new FieldError(-1, FieldError.DOCUMENT, "batch too large: more than 2 events"));
  }

  @Test
  void startEventForgetsTheCollectionsOfThePreviousEvent() {
    ParseRun run = new ParseRun(Events.NOW, false, LIMITS);
    run.metrics = new LinkedHashMap<>();
    run.metricsOverflow = true;
    run.tags = new LinkedHashMap<>();
    run.tagsOverflow = true;
    run.startEvent();
    assertThat(run.metrics).isNull();
    assertThat(run.tags).isNull();
    assertThat(run.metricsOverflow).isFalse();
    assertThat(run.tagsOverflow).isFalse();
  }

  @Test
  void payloadScratchIsMadeOnceAndSizedForTheDepthLimit() {
    ParseRun run = new ParseRun(Events.NOW, true, LIMITS);
    byte[] kind = run.kind();
    assertThat(kind).hasSize(LIMITS.maxDepth() + 2);
    assertThat(run.names).hasSize(LIMITS.maxDepth() + 2);
    assertThat(run.pos).hasSize(LIMITS.maxDepth() + 2);
    assertThat(run.kind()).isSameAs(kind);
    assertThat(run.payloadOut()).isSameAs(run.payloadOut());
    assertThat(run.keys(3)).isSameAs(run.keys(3)).isNotSameAs(run.keys(2));
  }
}
