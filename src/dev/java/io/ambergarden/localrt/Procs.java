package io.ambergarden.localrt;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.slf4j.Logger;

/** Process helpers built on ProcessHandle and Linux /proc. */
public final class Procs {
  /** After SIGKILL the kernel reaps quickly; this only guards against a hung wait. */
  private static final Duration KILL_WAIT = Duration.ofSeconds(10);

  /** setsid(1) of util-linux, or null where it is missing. */
  private static final Path SETSID = onPath("setsid");

  private Procs() {}

  /**
   * Words to put before a command so that it runs in a new session, and so a process group of its
   * own: {@code setsid}, which execs the command in the same process (a child of a JVM is no group
   * leader, so setsid need not fork). Empty where setsid is missing: the child then shares the
   * caller's group.
   */
  static List<String> newSession() {
    return SETSID == null ? List.of() : List.of(SETSID.toString());
  }

  private static Path onPath(String command) {
    String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
    return Arrays.stream(path.split(java.io.File.pathSeparator))
        .filter(d -> !d.isEmpty())
        .map(d -> Path.of(d, command))
        .filter(Files::isExecutable)
        .findFirst()
        .orElse(null);
  }

  /** The process group of a process (field 5 of /proc/pid/stat); empty if it is gone. */
  static Optional<Long> processGroup(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // the command name in parentheses may hold spaces: the fields after it are fixed
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Optional.of(Long.parseLong(fields[2]));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The NUL-separated /proc/pid/cmdline as a list; empty if the process is gone. */
  static List<String> commandLine(long pid) {
    try {
      byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
      return Arrays.stream(new String(raw, StandardCharsets.UTF_8).split("\0"))
          .filter(s -> !s.isEmpty())
          .collect(Collectors.toList());
    } catch (IOException e) {
      return List.of();
    }
  }

  /**
   * The pid may have been reused by an unrelated process since the pid file was written, so it only
   * counts as ours if the main class is an argument and the command line mentions our dir.
   */
  static boolean isOurServer(long pid, String mainClass, Path dir) {
    return matches(commandLine(pid), mainClass, dir);
  }

  static boolean matches(List<String> cmdline, String mainClass, Path dir) {
    String d = dir.toAbsolutePath().normalize().toString();
    return cmdline.contains(mainClass) && cmdline.stream().anyMatch(a -> a.contains(d));
  }

  /** VmRSS of the process in KiB; empty if it is gone. */
  public static Optional<Long> residentKb(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Optional.of(Long.parseLong(line.replaceAll("\\D", "")));
        }
      }
    } catch (IOException | NumberFormatException e) {
      // gone or unreadable
    }
    return Optional.empty();
  }

  /** SIGTERM, wait up to the grace period, then SIGKILL; descendants are handled the same way. */
  static void terminate(ProcessHandle handle, Duration grace, String name, Logger log) {
    List<ProcessHandle> descendants = handle.descendants().collect(Collectors.toList());
    handle.destroy();
    if (!await(handle, grace)) {
      log.warn(
          "{} (pid {}) did not stop within {} s after SIGTERM; killing it",
          name,
          handle.pid(),
          grace.toSeconds());
      handle.destroyForcibly();
      if (!await(handle, KILL_WAIT)) {
        log.error("{} (pid {}) survived SIGKILL", name, handle.pid());
      }
    }
    for (ProcessHandle child : descendants) {
      if (child.isAlive()) {
        child.destroy();
        if (!await(child, Duration.ofSeconds(5))) {
          child.destroyForcibly();
        }
      }
    }
  }

  private static boolean await(ProcessHandle handle, Duration timeout) {
    try {
      handle.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !handle.isAlive();
    } catch (ExecutionException e) {
      return !handle.isAlive();
    }
  }
}
