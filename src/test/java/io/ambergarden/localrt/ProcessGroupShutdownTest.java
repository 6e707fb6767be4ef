package io.ambergarden.localrt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher of the local servers, on a {@link FakeServer} started by a {@link SignalledParent}
 * JVM the way {@code mvn -Prun} starts Cassandra and Kafka: a SIGTERM to the parent's whole process
 * group stops the service while its server still serves, then the server; a SIGKILL of the parent
 * leaves no server behind.
 */
class ProcessGroupShutdownTest {
  @TempDir Path dir;

  private Process parent;

  @AfterEach
  void killLeftovers() {
    if (parent != null) {
      parent.destroyForcibly();
    }
    readServerPid().flatMap(ProcessHandle::of).ifPresent(ProcessHandle::destroyForcibly);
  }

  @Test
  void aSigtermToTheParentsGroupStopsTheServiceBeforeTheServer() throws Exception {
    long serverPid = startParent();
    assertThat(Procs.processGroup(serverPid))
        .as("the server runs in a group of its own")
        .isPresent()
        .get()
        .isNotEqualTo(parent.pid());

    signalGroup("TERM");

    assertThat(parent.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(events())
        .containsExactly(
            SignalledParent.SERVICE_STOPPED, FakeServer.STOPPING, SignalledParent.SERVERS_STOPPED);
    assertThat(ProcessHandle.of(serverPid).filter(ProcessHandle::isAlive)).isEmpty();
  }

  @Test
  void theServerStopsWhenItsParentIsKilled() throws Exception {
    long serverPid = startParent();

    signalGroup("KILL");

    assertThat(parent.waitFor(30, TimeUnit.SECONDS)).isTrue();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> ProcessHandle.of(serverPid).filter(ProcessHandle::isAlive).isEmpty());
    // it stopped through its own shutdown hooks (as Cassandra drains), not by a kill
    assertThat(events()).containsExactly(FakeServer.STOPPING);
  }

  /** The parent in a session of its own (as a process manager starts it); the server's pid. */
  private long startParent() throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd =
        List.of(
            "setsid",
            java,
            "-Xmx64m",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            System.getProperty("java.class.path"),
            SignalledParent.class.getName(),
            dir.toString());
    parent =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("parent.log").toFile())
            .start();
    await()
        .atMost(Duration.ofSeconds(60))
        .failFast("the parent exited", () -> !parent.isAlive())
        .until(() -> readServerPid().isPresent());
    // never signal the test JVM's own group
    assertThat(Procs.processGroup(parent.pid())).hasValue(parent.pid());
    assertThat(Procs.processGroup(ProcessHandle.current().pid())).isNotEqualTo(parent.pid());
    return readServerPid().orElseThrow();
  }

  private void signalGroup(String signal) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, "--", "-" + parent.pid()).start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).isZero();
  }

  private java.util.Optional<Long> readServerPid() {
    try {
      return java.util.Optional.of(Long.parseLong(Files.readString(dir.resolve("ready")).trim()));
    } catch (IOException | NumberFormatException e) {
      return java.util.Optional.empty();
    }
  }

  private List<String> events() throws IOException {
    Path log = dir.resolve("events.log");
    return Files.exists(log) ? Files.readAllLines(log) : List.of();
  }
}
