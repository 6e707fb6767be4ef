package io.ambergarden.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * How long a process's threads waited for a core, from the kernel's per-thread scheduler figures
 * ({@code /proc/PID/task/TID/schedstat}: time on a core, time runnable on a run queue). Over a
 * window, wait per millisecond run is how much CPU contention stretched the threads' work: a read
 * that needs 1 ms of a Cassandra request thread takes 1 + that on average, before any tail.
 */
final class RunQueueWait {
  /** One thread's cumulative times, as the kernel counts them. */
  record ThreadTimes(String name, long runNanos, long waitNanos) {}

  /** A group of threads over a window: their run and wait, summed. */
  record Share(String group, int threads, double runMillis, double waitMillis) {
    /** Milliseconds spent runnable but waiting per millisecond on a core; NaN if it never ran. */
    double waitPerRun() {
      return runMillis == 0 ? Double.NaN : waitMillis / runMillis;
    }
  }

  /** A named group of one process's threads, chosen by the kernel's (15-character) thread name. */
  record Group(String name, Predicate<String> threads) {}

  private final Path proc;

  RunQueueWait(Path proc) {
    this.proc = proc;
  }

  /** The real kernel's figures. */
  static RunQueueWait system() {
    return new RunQueueWait(Path.of("/proc"));
  }

  /** The threads of {@code pid} now, by thread id; empty if the process is gone or unreadable. */
  Map<Long, ThreadTimes> snapshot(long pid) {
    Map<Long, ThreadTimes> out = new HashMap<>();
    Path tasks = proc.resolve(Long.toString(pid)).resolve("task");
    try (Stream<Path> dirs = Files.list(tasks)) {
      for (Path dir : (Iterable<Path>) dirs::iterator) {
        try {
          String[] stat = Files.readString(dir.resolve("schedstat")).trim().split("\\s+");
          String name = Files.readString(dir.resolve("comm")).trim();
          out.put(
              Long.parseLong(dir.getFileName().toString()),
              new ThreadTimes(name, Long.parseLong(stat[0]), Long.parseLong(stat[1])));
        } catch (IOException | RuntimeException e) {
          // the thread ended between the listing and the read: its share is lost, as for one that
          // ends within the window
        }
      }
    } catch (IOException e) {
      return Map.of();
    }
    return out;
  }

  /**
   * Each group's run and wait between two snapshots of one process, by each thread's name at the
   * end. A thread born in the window counts from zero; one that ended in it is missing from {@code
   * after} and is left out.
   */
  static List<Share> between(
      Map<Long, ThreadTimes> before, Map<Long, ThreadTimes> after, List<Group> groups) {
    List<Share> out = new ArrayList<>();
    for (Group g : groups) {
      int threads = 0;
      long run = 0;
      long wait = 0;
      for (Map.Entry<Long, ThreadTimes> e : after.entrySet()) {
        ThreadTimes now = e.getValue();
        if (!g.threads().test(now.name())) {
          continue;
        }
        // by thread id, not name: Cassandra's shared-pool workers rename themselves to the stage
        // they serve, so a group should list every stage its workers move between
        ThreadTimes then = before.getOrDefault(e.getKey(), new ThreadTimes(now.name(), 0, 0));
        long dRun = now.runNanos() - then.runNanos();
        long dWait = now.waitNanos() - then.waitNanos();
        if (dRun > 0 || dWait > 0) {
          threads++;
          run += Math.max(0, dRun);
          wait += Math.max(0, dWait);
        }
      }
      out.add(new Share(g.name(), threads, run / 1e6, wait / 1e6));
    }
    return out;
  }

  /** Every thread of the process. */
  static Group all(String process) {
    return new Group(process, name -> true);
  }

  /** Threads whose kernel name starts with one of {@code prefixes}. */
  static Group named(String name, String... prefixes) {
    return new Group(
        name,
        thread -> {
          for (String p : prefixes) {
            if (thread.startsWith(p)) {
              return true;
            }
          }
          return false;
        });
  }

  /**
   * The bench's processes, each with the groups worth telling apart: Cassandra's request stages
   * (the shared pool serving reads and writes) from its compaction and flushes, the service's event
   * loops.
   */
  static final Map<String, List<Group>> BENCH_GROUPS =
      Map.of(
          "Cassandra",
          List.of(
              all("Cassandra"),
              named(
                  "Cassandra request stages",
                  "Native-Transpor",
                  "ReadStage",
                  "MutationStage",
                  "CounterMutation",
                  "SharedPool-Work"),
              named("Cassandra compaction and flush", "CompactionExec", "MemtableFlushW")),
          "service",
          List.of(all("service"), named("service event loops", "vert.x-eventloo")),
          "Kafka",
          List.of(all("Kafka")),
          "harness",
          List.of(all("harness")));

  /** A window over the ledger's processes, from now until {@link Window#line}. */
  Window start(CpuLedger ledger) {
    return new Window(ledger);
  }

  /** Snapshots of the bench's processes at a window's start. */
  final class Window {
    private final CpuLedger ledger;
    private final Map<String, Map<Long, ThreadTimes>> before = new HashMap<>();

    private Window(CpuLedger ledger) {
      this.ledger = ledger;
      for (String process : ledger.processNames()) {
        if (BENCH_GROUPS.containsKey(process)) {
          ledger.handle(process).ifPresent(h -> before.put(process, snapshot(h.pid())));
        }
      }
    }

    /** One report line for the window until now; empty if no process could be read. */
    String line(String condition) {
      List<Share> shares = new ArrayList<>();
      for (String process : ledger.processNames()) {
        Map<Long, ThreadTimes> start = before.get(process);
        // a process unread at the start would count its whole life as this window
        if (start != null && !start.isEmpty()) {
          ledger
              .handle(process)
              .ifPresent(
                  h -> shares.addAll(between(start, snapshot(h.pid()), BENCH_GROUPS.get(process))));
        }
      }
      String text = describe(shares);
      return text.isEmpty() ? "" : "run-queue wait, " + condition + ": " + text;
    }
  }

  /** "group: 0.62 ms waited per ms run (run 12.3 s, 40 threads)", joined with "; ". */
  static String describe(List<Share> shares) {
    List<String> parts = new ArrayList<>();
    for (Share s : shares) {
      if (s.threads() == 0) {
        continue;
      }
      parts.add(
          String.format(
              "%s %.2f ms waited per ms run (run %.1f s, waited %.1f s, %d threads)",
              s.group(), s.waitPerRun(), s.runMillis() / 1000, s.waitMillis() / 1000, s.threads()));
    }
    return String.join("; ", parts);
  }
}
