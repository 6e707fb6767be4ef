package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunQueueWaitTest {
  @TempDir Path proc;

  private void thread(long pid, long tid, String name, long runNanos, long waitNanos)
      throws IOException {
    Path dir = Files.createDirectories(proc.resolve(pid + "/task/" + tid));
    Files.writeString(dir.resolve("comm"), name + "\n");
    Files.writeString(dir.resolve("schedstat"), runNanos + " " + waitNanos + " 42\n");
  }

  @Test
  void readsEachThreadsRunAndWaitFromTheKernelsFiles() throws IOException {
    thread(7, 7, "java", 1_000, 2_000);
    thread(7, 9, "ReadStage-1", 5_000_000, 1_000_000);

    Map<Long, RunQueueWait.ThreadTimes> now = new RunQueueWait(proc).snapshot(7);

    assertThat(now)
        .containsEntry(7L, new RunQueueWait.ThreadTimes("java", 1_000, 2_000))
        .containsEntry(9L, new RunQueueWait.ThreadTimes("ReadStage-1", 5_000_000, 1_000_000))
        .hasSize(2);
  }

  @Test
  void aProcessThatIsGoneHasNoThreads() {
    assertThat(new RunQueueWait(proc).snapshot(12345)).isEmpty();
  }

  @Test
  void aWindowCountsTheDifferenceGroupedByTheThreadsNameAtItsEnd() throws IOException {
    RunQueueWait waits = new RunQueueWait(proc);
    thread(7, 10, "Native-Transpor", 10_000_000, 4_000_000);
    thread(7, 11, "CompactionExec", 50_000_000, 1_000_000);
    thread(7, 12, "ReadStage-2", 3_000_000, 3_000_000);
    Map<Long, RunQueueWait.ThreadTimes> before = waits.snapshot(7);
    // 10 runs 2 ms more and waits 6 ms more; 11 runs 8 ms more; 12 ends; 13 is born
    thread(7, 10, "MutationStage-3", 12_000_000, 10_000_000);
    thread(7, 11, "CompactionExec", 58_000_000, 1_000_000);
    thread(7, 13, "ReadStage-4", 1_000_000, 2_000_000);
    Files.delete(proc.resolve("7/task/12/comm"));
    Files.delete(proc.resolve("7/task/12/schedstat"));
    Files.delete(proc.resolve("7/task/12"));

    List<RunQueueWait.Share> shares =
        RunQueueWait.between(
            before,
            waits.snapshot(7),
            List.of(
                RunQueueWait.named("requests", "Native-Transpor", "ReadStage", "MutationStage"),
                RunQueueWait.named("compaction", "CompactionExec"),
                RunQueueWait.all("all")));

    assertThat(shares)
        .containsExactly(
            new RunQueueWait.Share("requests", 2, 3.0, 8.0),
            new RunQueueWait.Share("compaction", 1, 8.0, 0.0),
            new RunQueueWait.Share("all", 3, 11.0, 8.0));
    assertThat(shares.get(0).waitPerRun()).isEqualTo(8.0 / 3.0);
  }

  @Test
  void aThreadThatDidNotRunOrWaitIsNotCounted() {
    Map<Long, RunQueueWait.ThreadTimes> same =
        Map.of(1L, new RunQueueWait.ThreadTimes("idle", 5, 5));

    List<RunQueueWait.Share> shares =
        RunQueueWait.between(same, same, List.of(RunQueueWait.all("p")));

    assertThat(shares).containsExactly(new RunQueueWait.Share("p", 0, 0, 0));
    assertThat(shares.get(0).waitPerRun()).isNaN();
    assertThat(RunQueueWait.describe(shares)).isEmpty();
  }

  @Test
  void describesEachGroupThatRan() {
    String text =
        RunQueueWait.describe(
            List.of(
                new RunQueueWait.Share("Cassandra", 40, 12_300, 7_626),
                new RunQueueWait.Share("nobody", 0, 0, 0),
                new RunQueueWait.Share("service", 8, 2_000, 500)));

    assertThat(text)
        .isEqualTo(
            "Cassandra 0.62 ms waited per ms run (run 12.3 s, waited 7.6 s, 40 threads);"
                + " service 0.25 ms waited per ms run (run 2.0 s, waited 0.5 s, 8 threads)");
  }

  @Test
  void readsThisJvmsOwnThreadsOnLinux() {
    Path self = Path.of("/proc/self/task");
    assumeTrue(Files.isDirectory(self), "no /proc here");

    Map<Long, RunQueueWait.ThreadTimes> threads =
        RunQueueWait.system().snapshot(ProcessHandle.current().pid());

    assertThat(threads).isNotEmpty();
    assertThat(threads.values()).anyMatch(t -> t.runNanos() > 0);
  }
}
