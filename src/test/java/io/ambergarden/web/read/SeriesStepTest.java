package io.ambergarden.web.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SeriesStepTest {
  static final long S = 1_000L;
  static final long M = 60 * S;
  static final long H = 60 * M;
  static final long D = 24 * H;

  @ParameterizedTest
  @CsvSource({
    "1s, 1000",
    "30s, 30000",
    "1m, 60000",
    "5m, 300000",
    "15m, 900000",
    "60m, 3600000",
    "3600s, 3600000",
    "1h, 3600000",
    "6h, 21600000",
    "25h, 90000000",
    "1d, 86400000",
    "7d, 604800000",
    "PT5M, 300000",
    "PT30S, 30000",
    "PT1H, 3600000",
    "P1D, 86400000",
    "PT48H, 172800000",
    "pt10m, 600000"
  })
  void aShortFormOrAnIsoDurationIsParsedToItsLength(String text, long millis) {
    assertThat(SeriesStep.parse(text).millis()).isEqualTo(millis);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "7s", "7m", "25m", "59m", "61m", "90m", "PT7M", "PT1H30M", "PT90M", "5400s", "PT0.5S", "0s",
        "0m", "-1m", "1.5h", "1w", "5 m", "m", "5", "PT", "P", "PT-5M", "abc", "1y", "367d", "01m"
      })
  void aStepThatNeitherDividesAnHourNorIsWholeHoursIsRefused(String text) {
    assertThatThrownBy(() -> SeriesStep.parse(text)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aMissingStepSaysItIsRequired() {
    assertThatThrownBy(() -> SeriesStep.parse(null)).hasMessageContaining("is required");
    assertThatThrownBy(() -> SeriesStep.parse("")).hasMessageContaining("is required");
  }

  @Test
  void theRefusalSaysWhichRuleTheStepBreaks() {
    assertThatThrownBy(() -> SeriesStep.parse("7m")).hasMessageContaining("divide an hour");
    assertThatThrownBy(() -> SeriesStep.parse("90m")).hasMessageContaining("whole number of hours");
    assertThatThrownBy(() -> SeriesStep.parse("PT0.5S")).hasMessageContaining("whole number");
  }

  @Test
  void aHugeNumberIsRefusedNotOverflowed() {
    assertThatThrownBy(() -> SeriesStep.parse("999999999d"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> SeriesStep.parse("PT9999999999999H"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void bucketsAreAlignedToMultiplesOfTheStepSinceTheEpoch() {
    SeriesStep fiveMinutes = SeriesStep.parse("5m");
    assertThat(fiveMinutes.bucketOf(7 * M + 1)).isEqualTo(5 * M);
    assertThat(fiveMinutes.bucketOf(5 * M)).isEqualTo(5 * M);
    assertThat(fiveMinutes.bucketOf(-1)).isEqualTo(-5 * M);
    SeriesStep day = SeriesStep.parse("1d");
    assertThat(day.bucketOf(3 * D + 5 * H)).isEqualTo(3 * D);
    SeriesStep fiveHours = SeriesStep.parse("5h");
    assertThat(fiveHours.bucketOf(7 * H)).isEqualTo(5 * H);
  }

  @Test
  void theBucketCountIsEveryBucketTheRangeTouches() {
    SeriesStep minute = SeriesStep.parse("1m");
    assertThat(minute.bucketsIn(0, H)).isEqualTo(60);
    assertThat(minute.bucketsIn(30 * S, H)).isEqualTo(60);
    assertThat(minute.bucketsIn(30 * S, H + 1)).isEqualTo(61);
    assertThat(minute.bucketsIn(0, 1)).isEqualTo(1);
    assertThat(SeriesStep.parse("1d").bucketsIn(D - 1, D + 1)).isEqualTo(2);
  }

  @ParameterizedTest
  @CsvSource({"30s, 30s", "PT5M, 5m", "60m, 1h", "PT48H, 2d", "3600s, 1h", "P1D, 1d", "36h, 36h"})
  void theStepIsNamedByItsShortestText(String given, String text) {
    assertThat(SeriesStep.parse(given).text()).isEqualTo(text);
  }

  @Test
  void onlyHourlyStepsAreBuiltFromRollups() {
    assertThat(SeriesStep.parse("30m").hourly()).isFalse();
    assertThat(SeriesStep.parse("1h").hourly()).isTrue();
    assertThat(SeriesStep.parse("1d").hourly()).isTrue();
  }
}
