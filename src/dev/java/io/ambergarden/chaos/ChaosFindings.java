package io.ambergarden.chaos;

import io.ambergarden.chaos.history.HistoryChecker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The run's verdicts: each invariant has a name, the observed figure and whether it holds; figures
 * are reported, not judged. The stored state is judged by {@code check.StateChecker}, the history
 * by {@code history.HistoryChecker}; no I/O here.
 */
public final class ChaosFindings {
  public static final long HOUR = 3_600_000L;

  /** One checked property. */
  public record Invariant(String name, String observed, boolean holds) {}

  private final List<Invariant> invariants = new ArrayList<>();
  private final Map<String, Object> figures = new LinkedHashMap<>();

  public List<Invariant> invariants() {
    return List.copyOf(invariants);
  }

  /** Figures that are reported but not judged. */
  public Map<String, Object> figures() {
    return figures;
  }

  public boolean allHold() {
    return invariants.stream().allMatch(Invariant::holds);
  }

  public void check(String name, String observed, boolean holds) {
    invariants.add(new Invariant(name, observed, holds));
  }

  public void figure(String name, Object value) {
    figures.put(name, value);
  }

  /** A full ledger fails the run: past it the workload made no new identities. */
  public void ledger(AckLedger ledger) {
    check(
        "ledger filled before the workload ended",
        ledger.refusedFull() + " new events refused at its bound of " + ledger.maxEvents(),
        ledger.refusedFull() == 0);
  }

  /** The history's read anomalies, and whether it was recorded whole. */
  public void history(HistoryChecker.Verdict v, long dropped) {
    check(
        "history recorded whole",
        v.operations() + " operations, " + dropped + " not recorded",
        dropped == 0 && v.operations() > 0);
    check(
        "lost read-your-writes (a direct-mode 202 not seen by the writer's next read)",
        v.lostReadYourWrites()
            + " of "
            + v.readsAfterOwnDirectWrite()
            + " reads after an own direct-mode 202"
            + (v.lostReadYourWritesExamples().isEmpty()
                ? ""
                : " e.g. " + v.lostReadYourWritesExamples()),
        v.lostReadYourWrites() == 0);
    check(
        "latest state going backwards for one reader",
        v.latestBackwards()
            + (v.latestBackwardsExamples().isEmpty() ? "" : " e.g. " + v.latestBackwardsExamples()),
        v.latestBackwards() == 0);
    figure("history operations by function and type", v.counts().toString());
    figure("history invocations never completed (client stopped)", v.unfinished());
  }

  /** The checker itself failed: the run fails, and the report says why. */
  public void crashed(Throwable t) {
    java.io.StringWriter trace = new java.io.StringWriter();
    t.printStackTrace(new java.io.PrintWriter(trace));
    String text = trace.toString();
    check(
        "checker completed",
        "crashed: " + text.substring(0, Math.min(4000, text.length())).replace('\n', ' '),
        false);
  }

  /** Dead letters against the poison sent: each acknowledged poison record, and nothing else. */
  public void deadLetters(
      AckLedger ledger,
      Set<String> poisonDeadLettered,
      long poisonDeadRecords,
      Map<String, Integer> otherByClass) {
    Set<String> acked = ledger.poisonAcked();
    Set<String> sent = ledger.poisonSent();
    long missing = acked.stream().filter(id -> !poisonDeadLettered.contains(id)).count();
    long unknown = poisonDeadLettered.stream().filter(id -> !sent.contains(id)).count();
    int other = otherByClass.values().stream().mapToInt(Integer::intValue).sum();
    check(
        "dead letters equal to the poison sent",
        poisonDeadLettered.size()
            + " distinct poison records dead-lettered; "
            + acked.size()
            + " acknowledged by the broker, "
            + sent.size()
            + " sent; "
            + missing
            + " missing, "
            + unknown
            + " unknown",
        missing == 0 && unknown == 0);
    check("dead letters of valid events", other + " " + otherByClass, other == 0);
    figure(
        "poison dead letters written more than once",
        poisonDeadRecords - poisonDeadLettered.size());
  }

  public void speculation(Map<String, Double> byKind) {
    Map<String, Double> sorted = new TreeMap<>(byKind);
    figure("speculative executions by statement kind", sorted);
    double counters = byKind.getOrDefault("counter", 0.0);
    check("speculative executions of counter updates", Double.toString(counters), counters == 0);
  }

  /** Hints delivered by every node before the tables were read (-1: not within the deadline). */
  public void hintsDelivered(long millis) {
    check(
        "hints delivered before the tables were read at ALL (ms after the workload)",
        Long.toString(millis),
        millis >= 0);
  }

  public void lag(long drainedMillis) {
    check(
        "consumer lag back to 0 after the workload (ms)",
        Long.toString(drainedMillis),
        drainedMillis >= 0);
  }

  public void recoveries(List<Nemesis.Outcome> outcomes) {
    long failed = outcomes.stream().filter(o -> o.recoveredAt() < 0 || o.error() != null).count();
    check(
        "faults not recovered within the deadline (or not injected)",
        failed + " of " + outcomes.size(),
        failed == 0 && !outcomes.isEmpty());
    Map<String, Integer> kinds = new HashMap<>();
    Map<String, Integer> shapes = new HashMap<>();
    for (Nemesis.Outcome o : outcomes) {
      o.step().faults().forEach(f -> kinds.merge(f.kind().name(), 1, Integer::sum));
      shapes.merge(o.step().shape().name(), 1, Integer::sum);
    }
    figure("faults by kind", new TreeMap<>(kinds));
    figure("steps by shape", new TreeMap<>(shapes));
  }

  /** Every partition cut what it should and nothing else, as its probes saw right after the cut. */
  public void partitionsProbed(List<Nemesis.Outcome> outcomes) {
    List<String> bad =
        outcomes.stream()
            .filter(o -> !o.probesMatched())
            .map(o -> "#" + o.step().index() + " " + o.probes())
            .toList();
    long probed = outcomes.stream().filter(o -> !o.probes().isEmpty()).count();
    check(
        "partitions whose probes did not match the cut",
        bad.size() + " of " + probed + (bad.isEmpty() ? "" : " " + bad),
        bad.isEmpty());
  }

  /**
   * While two of three nodes are down, or the instances reach only a minority, a direct-mode
   * instance refuses: not one 202 for a request sent once the fault was in force (kafka-mode
   * instances keep accepting into Kafka).
   */
  public void majorityLoss(List<Nemesis.Outcome> outcomes) {
    long directAcks = 0;
    long acked = 0;
    int losses = 0;
    for (Nemesis.Outcome o : outcomes) {
      for (int i = 0; i < o.step().faults().size(); i++) {
        ChaosWorkload.PostStats during = o.httpPerFault().get(i);
        if (o.step().faults().get(i).kind().losesQuorum() && during != null) {
          losses++;
          directAcks += during.directAcks();
          acked += o.ackedDuringHold();
        }
      }
    }
    check(
        "direct-mode 202s while storage had no quorum",
        directAcks + " in " + losses + " majority losses and minority sides",
        directAcks == 0);
    figure("events acknowledged (into Kafka) during steps without a storage quorum", acked);
  }
}
