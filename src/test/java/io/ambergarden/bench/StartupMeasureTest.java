package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StartupMeasureTest {
  @Test
  void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwoAndNanIsLeftOut() {
    Spread s = Spread.of(Arrays.asList(9.0, 3.0, Double.NaN, 5.0, 1.0));

    assertThat(s).isEqualTo(new Spread(4, 4.0, 1.0, 9.0));
    assertThat(s.text()).isEqualTo("4.0 (1.0-9.0)");
  }

  @Test
  void noMeasurementGivesADashNotAZero() {
    assertThat(Spread.of(List.of()).n()).isZero();
    assertThat(Spread.of(List.of()).text()).isEqualTo("-");
  }

  @Test
  void eachStepIsTheFirstMatchingLineCountedFromTheProcessStart() {
    List<String> log =
        List.of(
            "SLF4J: a line without a time",
            "14:00:03.500 INFO  [main] AmberGarden  - configuration (secrets redacted): {}",
            "14:00:09.250 INFO  [vert.x-eventloop-thread-0] AmberGarden  - Amber Garden is up on"
                + " http://127.0.0.1:1234 (ingest mode KAFKA)",
            "14:00:12.000 INFO  [vert.x-eventloop-thread-1] KafkaIngestVerticle  - assigned [t-0]",
            "14:00:20.000 INFO  [vert.x-eventloop-thread-1] KafkaIngestVerticle  - assigned [t-1]");

    Map<String, Double> steps =
        StartupLog.offsets(log, LocalTime.parse("14:00:01.000"), StartupLog.MARKERS);

    assertThat(steps)
        .containsExactly(
            Map.entry("first log", 2.5),
            Map.entry("HTTP up", 8.25),
            Map.entry("partitions assigned", 11.0));
  }

  @Test
  void aStartJustBeforeMidnightCountsLinesAfterItFromTheNextDay() {
    Map<String, Double> steps =
        StartupLog.offsets(
            List.of("00:00:01.000 INFO x - Amber Garden is up"),
            LocalTime.parse("23:59:59.000"),
            StartupLog.MARKERS);

    assertThat(steps).containsEntry("HTTP up", 2.0);
  }

  @Test
  void startsMapTheArchiveOnlyOnceItIsWritten() {
    Path archive = Path.of("/tmp/x/instance.jsa");

    assertThat(ClassDataSharing.useOptions(false, archive)).isEmpty();
    assertThat(ClassDataSharing.useOptions(true, archive))
        .containsExactly("-XX:SharedArchiveFile=/tmp/x/instance.jsa");
  }

  @Test
  void classDirectoriesBecomeJarsInTheirPlaceAndJarsStayAsTheyAre(@TempDir Path tmp)
      throws Exception {
    Path classes = tmp.resolve("classes");
    Files.createDirectories(classes.resolve("io/x"));
    Files.writeString(classes.resolve("io/x/A.class"), "a");
    Files.writeString(classes.resolve("conf.properties"), "k=v");
    Path lib = tmp.resolve("lib.jar");
    Files.writeString(lib, "not read");
    Files.createDirectories(tmp.resolve("cds"));
    Files.writeString(tmp.resolve("cds/instance.jsa"), "stale");

    ClassDataSharing cds =
        ClassDataSharing.in(tmp.resolve("cds"), classes + File.pathSeparator + lib);

    Path jar = tmp.resolve("cds/classes-0.jar");
    assertThat(cds.classpath()).isEqualTo(jar + File.pathSeparator + lib);
    try (JarFile j = new JarFile(jar.toFile())) {
      assertThat(j.stream().map(e -> e.getName()))
          .containsExactlyInAnyOrder("io/x/A.class", "conf.properties");
    }
    assertThat(cds.archived()).as("an archive of an earlier run is removed").isFalse();
    assertThat(cds.useOptions()).isEmpty();
  }
}
