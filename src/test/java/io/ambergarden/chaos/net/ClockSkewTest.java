package io.ambergarden.chaos.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClockSkewTest {
  @TempDir Path dir;

  @Test
  void offsetsAreWrittenInLibfaketimesRelativeFormToTheMillisecond() {
    assertThat(ClockSkew.render(Duration.ZERO)).isEqualTo("+0.000s");
    assertThat(ClockSkew.render(Duration.ofSeconds(90))).isEqualTo("+90.000s");
    assertThat(ClockSkew.render(Duration.ofMillis(-1250))).isEqualTo("-1.250s");
    assertThat(ClockSkew.render(Duration.ofMinutes(-5))).isEqualTo("-300.000s");
  }

  @Test
  void aNewSkewStartsAtZeroAndEachSetReplacesTheFile() throws Exception {
    Path file = dir.resolve("node3.faketime");
    ClockSkew skew = ClockSkew.file(file, dir.resolve("libfaketime.so.1"));
    assertThat(Files.readString(file)).isEqualTo("+0.000s\n");
    skew.set(Duration.ofSeconds(-120));
    assertThat(Files.readString(file)).isEqualTo("-120.000s\n");
    assertThat(skew.offset()).isEqualTo(Duration.ofSeconds(-120));
    try (var files = Files.list(dir)) {
      assertThat(files).containsExactly(file); // no temporary file left behind
    }
  }

  @Test
  void theEnvironmentPreloadsTheLibraryAndLeavesTheMonotonicClockAlone() {
    Path file = dir.resolve("i1.faketime");
    ClockSkew skew = ClockSkew.file(file, Path.of("/lib/libfaketime.so.1"));
    assertThat(skew.env())
        .containsEntry("LD_PRELOAD", "/lib/libfaketime.so.1")
        .containsEntry("FAKETIME_TIMESTAMP_FILE", file.toAbsolutePath().toString())
        .containsEntry("FAKETIME_CACHE_DURATION", "1")
        .containsEntry("FAKETIME_DONT_FAKE_MONOTONIC", "1")
        .containsEntry("FAKETIME_FORCE_MONOTONIC_FIX", "0")
        .doesNotContainKey("FAKETIME_NO_CACHE");
  }
}
