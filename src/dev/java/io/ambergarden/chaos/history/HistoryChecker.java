package io.ambergarden.chaos.history;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Read anomalies in a history, judged as the operations stream by (no I/O, one pass):
 *
 * <ul>
 *   <li><b>read-your-writes</b>: once a process got a 202 from a {@code direct}-mode instance (the
 *       202 comes after the Cassandra writes), its later reads of a device it wrote must serve that
 *       event or a newer one;
 *   <li><b>monotonic latest</b>: a process's read of a device's latest state, invoked after its
 *       previous read of that device completed, never serves an older state (nor none at all).
 * </ul>
 *
 * Memory is a few longs per (process, device) pair the history names: processes are the few client
 * workers, devices the run's devices.
 */
public final class HistoryChecker implements Consumer<Op> {
  /** Examples kept per anomaly kind. */
  static final int EXAMPLES = 10;

  private record Key(int process, String deviceId) {}

  /** What a pending read must not fall below: the own write, and the last state seen. */
  private record Pending(long mustSeeTs, String mustSeeEvent, long lastSeenTs, boolean sawSome) {}

  private final Map<Key, Op.Written> ownDirectWrites = new HashMap<>();
  private final Map<Key, Long> lastSeen = new HashMap<>();
  private final Map<Integer, Op> open = new HashMap<>();
  private final Map<Integer, Pending> pendingReads = new HashMap<>();
  private final Map<Op.Fn, Map<Op.Type, Long>> counts = new EnumMap<>(Op.Fn.class);
  private final List<String> lostReadYourWrites = new ArrayList<>();
  private final List<String> latestBackwards = new ArrayList<>();
  private long lostReadYourWritesCount;
  private long latestBackwardsCount;
  private long readsAfterOwnWrite;
  private long completionsWithoutInvoke;
  private long ops;

  /** The verdict of a whole history. */
  public record Verdict(
      long operations,
      Map<Op.Fn, Map<Op.Type, Long>> counts,
      long readsAfterOwnDirectWrite,
      long lostReadYourWrites,
      List<String> lostReadYourWritesExamples,
      long latestBackwards,
      List<String> latestBackwardsExamples,
      long unfinished,
      long completionsWithoutInvoke) {}

  /** Judges a recorded history file. */
  public static Verdict check(java.nio.file.Path file) {
    HistoryChecker c = new HistoryChecker();
    History.replay(file, c);
    return c.verdict();
  }

  /** Judges operations in recorded order. */
  public static Verdict check(Iterable<Op> history) {
    HistoryChecker c = new HistoryChecker();
    history.forEach(c);
    return c.verdict();
  }

  @Override
  public void accept(Op op) {
    ops++;
    counts
        .computeIfAbsent(op.f(), k -> new EnumMap<>(Op.Type.class))
        .merge(op.type(), 1L, Long::sum);
    if (op.type() == Op.Type.INVOKE) {
      open.put(op.process(), op);
      if (op.f() == Op.Fn.READ_LATEST && op.read() != null) {
        Key k = new Key(op.process(), op.read().deviceId());
        Op.Written own = ownDirectWrites.get(k);
        Long seen = lastSeen.get(k);
        pendingReads.put(
            op.process(),
            new Pending(
                own == null ? Long.MIN_VALUE : own.ts(),
                own == null ? null : own.eventId(),
                seen == null ? Long.MIN_VALUE : seen,
                seen != null));
      }
      return;
    }
    Op invoked = open.remove(op.process());
    if (invoked == null) {
      completionsWithoutInvoke++;
      return;
    }
    if (op.f() == Op.Fn.POST && op.type() == Op.Type.OK && op.direct()) {
      for (Op.Written w : op.written()) {
        ownDirectWrites.merge(
            new Key(op.process(), w.deviceId()), w, (a, b) -> a.ts() >= b.ts() ? a : b);
      }
    }
    if (op.f() == Op.Fn.READ_LATEST) {
      Pending p = pendingReads.remove(op.process());
      if (op.type() == Op.Type.OK && p != null && op.read() != null) {
        judgeRead(op, p);
      }
    }
  }

  private void judgeRead(Op op, Pending p) {
    Op.Read r = op.read();
    boolean none = r.eventId() == null;
    long ts = none ? Long.MIN_VALUE : r.ts();
    if (p.mustSeeEvent() != null) {
      readsAfterOwnWrite++;
      if (ts < p.mustSeeTs()) {
        lostReadYourWritesCount++;
        example(
            lostReadYourWrites,
            "process %d read %s on slot %d at %d ns: %s, after its own 202 of %s (ts %d)"
                .formatted(
                    op.process(),
                    r.deviceId(),
                    op.slot(),
                    op.nanos(),
                    none ? "none" : r.eventId() + " (ts " + r.ts() + ")",
                    p.mustSeeEvent(),
                    p.mustSeeTs()));
      }
    }
    if (p.sawSome() && ts < p.lastSeenTs()) {
      latestBackwardsCount++;
      example(
          latestBackwards,
          "process %d read %s on slot %d at %d ns: %s, after it had seen ts %d"
              .formatted(
                  op.process(),
                  r.deviceId(),
                  op.slot(),
                  op.nanos(),
                  none ? "none" : r.eventId() + " (ts " + r.ts() + ")",
                  p.lastSeenTs()));
    }
    if (!none) {
      lastSeen.merge(new Key(op.process(), r.deviceId()), ts, Math::max);
    }
  }

  private static void example(List<String> into, String text) {
    if (into.size() < EXAMPLES) {
      into.add(text);
    }
  }

  public Verdict verdict() {
    Map<Op.Fn, Map<Op.Type, Long>> copy = new EnumMap<>(Op.Fn.class);
    counts.forEach((k, v) -> copy.put(k, Map.copyOf(v)));
    return new Verdict(
        ops,
        copy,
        readsAfterOwnWrite,
        lostReadYourWritesCount,
        List.copyOf(lostReadYourWrites),
        latestBackwardsCount,
        List.copyOf(latestBackwards),
        open.size(),
        completionsWithoutInvoke);
  }
}
