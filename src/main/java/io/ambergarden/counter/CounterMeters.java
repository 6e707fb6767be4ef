package io.ambergarden.counter;

import io.ambergarden.metrics.AmberMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The counter verticle's meters. */
final class CounterMeters {
  final Counter updates;
  final Counter statements;
  final Counter unknownOutcomes;
  final Counter resent;
  final Counter refused;
  final Counter alreadyApplied;
  final Counter speculative;
  final DistributionSummary requestCells;
  private final Map<String, Counter> unknownOutcomeEvents = new HashMap<>();

  CounterMeters(MeterRegistry registry) {
    updates = AmberMeters.counter(registry, "amber.counter.updates", "Counter cells updated");
    statements =
        AmberMeters.counter(
            registry, "amber.counter.statements", "Counter statements (batches) sent");
    unknownOutcomes =
        AmberMeters.counter(
            registry,
            "amber.counter.unknown.outcomes",
            "Counter updates whose outcome is unknown (timeout): they may or may not have applied");
    for (String cells : CounterCells.KINDS) {
      unknownOutcomeEvents.put(
          cells,
          Counter.builder("amber.counter.unknown.outcome.events")
              .description(
                  "Events in counter updates whose outcome is unknown (timeout), by what the cells"
                      + " count: how far a resend may have counted them twice")
              .tag("cells", cells)
              .register(registry));
    }
    resent =
        AmberMeters.counter(
            registry,
            "amber.counter.resent",
            "Counter updates sent again after a failure (may count twice after an unknown outcome)");
    refused =
        AmberMeters.counter(
            registry,
            "amber.counter.refused",
            "Apply requests refused: another one is still being applied");
    alreadyApplied =
        AmberMeters.counter(
            registry,
            "amber.counter.parts.already.applied",
            "Journal parts sent again after they were applied here: answered without a write");
    speculative = AmberMeters.speculativeExecutions(registry, "counter");
    requestCells =
        DistributionSummary.builder("amber.counter.flush.size")
            .description("Distinct counter cells per apply request")
            .register(registry);
  }

  /** A statement of these updates timed out: they may or may not have applied. */
  void unknownOutcome(List<CounterCoalescer.Update> updates) {
    unknownOutcomes.increment(updates.size());
    updates.forEach(u -> unknownOutcomeEvents.get(cellsOf(u.cell())).increment(u.delta()));
  }

  /** What a cell counts ({@link CounterCells#KINDS}). */
  static String cellsOf(CounterCell cell) {
    return cell instanceof CounterCell.StatusHour c ? c.dimension() : CounterCells.DEVICE;
  }
}
