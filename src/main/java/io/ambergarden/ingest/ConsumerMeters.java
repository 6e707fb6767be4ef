package io.ambergarden.ingest;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/**
 * Meters of the consumer's group membership and poll loop: what shows a rebalance storm or a poll
 * loop drifting towards max.poll.interval.ms.
 */
final class ConsumerMeters {
  private final Counter assigned;
  private final Counter revoked;
  private final Counter lost;
  private final Counter storeRejected;
  private final Counter lettersCut;
  private final Counter lettersLost;
  private final Timer pollGap;
  private volatile boolean stalled;

  ConsumerMeters(MeterRegistry registry) {
    assigned = moved(registry, "assigned");
    revoked = moved(registry, "revoked");
    lost = moved(registry, "lost");
    storeRejected =
        Counter.builder("amber.kafka.consumer.store.rejected")
            .description("Valid records the store refused to write, sent to the dead-letter topic")
            .register(registry);
    lettersCut =
        Counter.builder("amber.dead.letters.truncated")
            .description(
                "Dead letters sent cut (value, key or headers left out) because the whole record"
                    + " was too large to send")
            .register(registry);
    lettersLost =
        Counter.builder("amber.dead.letters.lost")
            .description(
                "Poison records skipped because no dead letter of them could be written; each is"
                    + " logged with its coordinates, size and SHA-256")
            .register(registry);
    pollGap =
        Timer.builder("amber.kafka.consumer.poll.gap")
            .description(
                "Time between two polls of the consumer; must stay below max.poll.interval")
            .register(registry);
    Gauge.builder("amber.kafka.consumer.stalled", this, m -> m.stalled ? 1 : 0)
        .description(
            "1 while the consumer has lag or records in flight and finished none for"
                + " kafka.consumer.stall-timeout")
        .register(registry);
  }

  private static Counter moved(MeterRegistry registry, String change) {
    return Counter.builder("amber.kafka.consumer.partitions")
        .tag("change", change)
        .description("Partitions assigned to, revoked from or lost by this consumer")
        .register(registry);
  }

  void assigned(int n) {
    assigned.increment(n);
  }

  void revoked(int n) {
    revoked.increment(n);
  }

  void lost(int n) {
    lost.increment(n);
  }

  void storeRejected() {
    storeRejected.increment();
  }

  void deadLetterCut() {
    lettersCut.increment();
  }

  void deadLetterLost() {
    lettersLost.increment();
  }

  boolean stalled() {
    return stalled;
  }

  void stalled(boolean v) {
    stalled = v;
  }

  void pollGap(long nanos) {
    pollGap.record(nanos, TimeUnit.NANOSECONDS);
  }
}
