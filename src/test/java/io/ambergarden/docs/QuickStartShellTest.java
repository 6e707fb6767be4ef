package io.ambergarden.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's quick start is POSIX sh: every shell block parses under dash, none uses a GNU-only
 * flag, and the block that needs no server runs under dash with curl stubbed, sending an event
 * stamped with the current time in epoch milliseconds.
 */
class QuickStartShellTest {
  private static final Pattern FENCE = Pattern.compile("(?ms)^```(\\w*)\\n(.*?)^```");

  /** Constructs that work in bash or GNU coreutils but not in dash or BSD/macOS tools. */
  private static final Map<String, Pattern> NOT_POSIX =
      Map.of(
          "date with nanoseconds (%N, %3N)", Pattern.compile("date\\s+[^\\n]*%\\d*N"),
          "sed -i without a suffix", Pattern.compile("\\bsed\\s+-i(\\s|$)"),
          "grep -P", Pattern.compile("\\bgrep\\s+(-\\w*P)"),
          "readlink -f", Pattern.compile("\\breadlink\\s+-f"),
          "[[ ]] tests", Pattern.compile("\\[\\["),
          "echo -e", Pattern.compile("\\becho\\s+-e\\b"),
          "source instead of .", Pattern.compile("(^|[;&|]\\s*)source\\s", Pattern.MULTILINE));

  /** Blocks that start servers or builds are parsed, never run. */
  private static final Pattern NEEDS_A_BUILD =
      Pattern.compile("(^|[\\s;&|(])(mvn|java|kubectl|docker)\\s", Pattern.MULTILINE);

  private static Path dash;

  @BeforeAll
  static void findDash() {
    dash =
        Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
            .map(dir -> Path.of(dir, "dash"))
            .filter(Files::isExecutable)
            .findFirst()
            .orElse(null);
    // CI installs dash (see .ci/run), so there the test always runs; elsewhere it says what is
    // missing
    if (dash == null && System.getenv("CI") != null) {
      throw new IllegalStateException("CI must provide dash");
    }
    Assumptions.assumeTrue(dash != null, "install dash to check the README's quick start");
  }

  static List<String> quickStartBlocks() throws IOException {
    String readme = Files.readString(Path.of("README.md"));
    int start = readme.indexOf("\n## Quick start\n");
    assertThat(start).as("README has a Quick start section").isPositive();
    int end = readme.indexOf("\n## ", start + 1);
    String section = readme.substring(start, end < 0 ? readme.length() : end);
    List<String> blocks = new ArrayList<>();
    Matcher m = FENCE.matcher(section);
    while (m.find()) {
      assertThat(m.group(1))
          .as("a quick-start block is tagged sh, not bash:\n%s", m.group(2))
          .isEqualTo("sh");
      blocks.add(m.group(2));
    }
    return blocks;
  }

  @Test
  void everyQuickStartBlockParsesUnderDash() throws Exception {
    List<String> blocks = quickStartBlocks();
    assertThat(blocks).as("the run, test and try-it blocks").hasSizeGreaterThanOrEqualTo(2);
    for (String block : blocks) {
      Result r = run(List.of(dash.toString(), "-n"), block, Path.of("."));
      assertThat(r.exit()).as("dash -n on:\n%s\n%s", block, r.output()).isZero();
    }
  }

  @Test
  void noQuickStartBlockUsesAGnuOnlyConstruct() throws IOException {
    for (String block : quickStartBlocks()) {
      NOT_POSIX.forEach(
          (what, pattern) ->
              assertThat(pattern.matcher(block).find()).as("%s in:\n%s", what, block).isFalse());
    }
  }

  @Test
  void theGnuChecksCatchWhatTheyAreFor() {
    assertThat(NOT_POSIX.get("date with nanoseconds (%N, %3N)").matcher("ts=$(date +%s%3N)").find())
        .isTrue();
    assertThat(NOT_POSIX.get("sed -i without a suffix").matcher("sed -i 's/a/b/' f").find())
        .isTrue();
    assertThat(NOT_POSIX.get("sed -i without a suffix").matcher("sed -i.bak 's/a/b/' f").find())
        .isFalse();
    assertThat(NOT_POSIX.get("grep -P").matcher("grep -oP '\\d+'").find()).isTrue();
    assertThat(NOT_POSIX.get("readlink -f").matcher("readlink -f x").find()).isTrue();
  }

  @Test
  void theTryItBlockRunsUnderDashAndStampsTheEventWithTheTimeInMillis(@TempDir Path dir)
      throws Exception {
    List<String> runnable =
        quickStartBlocks().stream().filter(b -> !NEEDS_A_BUILD.matcher(b).find()).toList();
    assertThat(runnable).as("the block that talks to a running service").hasSize(1);
    Files.createDirectories(dir.resolve(".runtime"));
    Files.writeString(dir.resolve(".runtime/admin.key"), "amb_test_key\n");
    // curl prints each argument on a line of its own and each call ends with a marker
    String stub = "curl() { for a in \"$@\"; do printf '%s\\n' \"$a\"; done; echo '--end--'; }\n";
    long before = System.currentTimeMillis();
    Result r = run(List.of(dash.toString(), "-eu"), stub + runnable.get(0), dir);
    long after = System.currentTimeMillis();
    assertThat(r.exit()).as("the block under dash -eu:\n%s", r.output()).isZero();

    List<List<String>> calls = new ArrayList<>();
    List<String> call = new ArrayList<>();
    for (String line : r.output().split("\n")) {
      if (line.equals("--end--")) {
        calls.add(call);
        call = new ArrayList<>();
      } else {
        call.add(line);
      }
    }
    List<String> post =
        calls.stream()
            .filter(c -> c.stream().anyMatch(a -> a.endsWith("/api/v1/events")))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no POST of an event in:\n" + r.output()));
    assertThat(post).contains("Authorization: Bearer amb_test_key");
    JsonObject event = new JsonObject(post.get(post.indexOf("-d") + 1));
    assertThat(event.getString("deviceId")).isEqualTo("M-10086");
    // whole seconds in milliseconds: within the second before the run and the run's end
    assertThat(event.getLong("ts")).isBetween(before - 1000, after);
  }

  record Result(int exit, String output) {}

  static Result run(List<String> command, String stdin, Path dir) throws Exception {
    Process p =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    try (var in = p.getOutputStream()) {
      in.write(stdin.getBytes(StandardCharsets.UTF_8));
    }
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("dash finished").isTrue();
    return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
  }
}
