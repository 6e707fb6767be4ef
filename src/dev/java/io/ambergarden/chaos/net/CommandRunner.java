package io.ambergarden.chaos.net;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a short command and returns its output lines; a non-zero exit is an exception. */
@FunctionalInterface
interface CommandRunner {
  Duration TIMEOUT = Duration.ofSeconds(20);

  /** Runs {@code command} with {@code input} on its standard input (empty: none). */
  List<String> run(List<String> command, String input);

  default List<String> run(List<String> command) {
    return run(command, "");
  }

  /** Whether the command exits 0 (e.g. {@code iptables -C}: the rule exists). */
  default boolean succeeds(List<String> command) {
    return succeeds(command, "");
  }

  default boolean succeeds(List<String> command, String input) {
    try {
      run(command, input);
      return true;
    } catch (IllegalStateException nonZero) {
      return false;
    }
  }

  /** The real one: a child process, its stderr merged into what the exception says. */
  static CommandRunner system() {
    return (command, input) -> {
      try {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (var stdin = p.getOutputStream()) {
          stdin.write(input.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
          p.destroyForcibly();
          throw new IllegalStateException(command + " did not finish within " + TIMEOUT);
        }
        if (p.exitValue() != 0) {
          throw new IllegalStateException(
              command + " failed with exit code " + p.exitValue() + ": " + out.strip());
        }
        return out.lines().toList();
      } catch (IOException e) {
        throw new IllegalStateException("could not run " + command + ": " + e, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while running " + command, e);
      }
    };
  }
}
