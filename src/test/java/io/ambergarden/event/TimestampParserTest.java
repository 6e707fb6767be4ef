package io.ambergarden.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class TimestampParserTest {

  @ParameterizedTest
  @CsvSource({
    "1752537600000, 1752537600000",
    "0, 0",
    "-1, -1",
    "9223372036854775807, 9223372036854775807",
    "2025-07-15T00:00:00Z, 1752537600000",
    "2025-07-15T08:00:00+08:00, 1752537600000",
    "2025-07-14T19:00-05:00, 1752537600000",
    "2025-07-15T00:00:00.5Z, 1752537600500",
    "2025-07-15T00:00:00.123456Z, 1752537600123",
    "1969-12-31T23:59:59.999Z, -1",
  })
  void acceptsEpochMillisAndIsoWithAnOffset(String text, long millis) {
    TimestampParser.Result r = TimestampParser.parse(text);
    assertThat(r.ok()).isTrue();
    assertThat(r.error()).isNull();
    assertThat(r.millis()).isEqualTo(millis);
    assertThat(TimestampParser.parseOrEmpty(text)).isEqualTo(OptionalLong.of(millis));
  }

  @Test
  void isoWithoutAnOffsetIsRejectedSayingSo() {
    assertThat(TimestampParser.parse("2025-07-15T00:00:00").error())
        .isEqualTo(TimestampParser.MSG_OFFSET_REQUIRED);
    assertThat(TimestampParser.parse("2025-07-15T00:00:00.123").error()).contains("offset");
    assertThat(TimestampParser.parse("2025-07-15").error())
        .isEqualTo(TimestampParser.MSG_TIME_REQUIRED);
  }

  @ParameterizedTest
  @NullAndEmptySource
  void nothingIsRejected(String text) {
    assertThat(TimestampParser.parse(text).error()).isEqualTo(TimestampParser.MSG_EMPTY);
    assertThat(TimestampParser.parseOrEmpty(text)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "soon",
        "1.5",
        "1e12",
        " 1752537600000",
        "0x10",
        "+1",
        "-",
        "2025-07-15T25:00:00Z",
        "2025-02-30T00:00:00Z",
        "2025-07-15 00:00:00Z",
        "2025-07-15T00:00:00 Z",
        "1752537600000ms"
      })
  void junkIsRejected(String text) {
    assertThat(TimestampParser.parse(text).error()).isEqualTo(TimestampParser.MSG_INVALID);
    assertThat(TimestampParser.parseOrEmpty(text)).isEmpty();
  }

  @Test
  void tooLongTextIsRejectedCheaply() {
    assertThat(TimestampParser.parse("2025-07-15T00:00:00Z" + " ".repeat(10_000)).ok()).isFalse();
  }

  @Test
  void numbersBeyondALongAreOutOfRange() {
    assertThat(TimestampParser.parse("9223372036854775808").error())
        .isEqualTo(TimestampParser.MSG_OUT_OF_RANGE);
    assertThat(TimestampParser.parse("-99999999999999999999").error())
        .isEqualTo(TimestampParser.MSG_OUT_OF_RANGE);
    assertThat(TimestampParser.parse("+999999999-12-31T23:59:59Z").error())
        .isEqualTo(TimestampParser.MSG_OUT_OF_RANGE);
  }

  @Test
  void theIsoOnlyVariantRejectsEpochMillisText() {
    assertThat(TimestampParser.parseIso("1752537600000").ok()).isFalse();
    assertThat(TimestampParser.parseIso("1752537600000").error())
        .isEqualTo(TimestampParser.MSG_INVALID_ISO);
    assertThat(TimestampParser.parseIso("2025-07-15T00:00:00Z").millis()).isEqualTo(1752537600000L);
  }

  @Test
  void decimalIntegerDetection() {
    assertThat(TimestampParser.isDecimalInteger("123")).isTrue();
    assertThat(TimestampParser.isDecimalInteger("-123")).isTrue();
    assertThat(TimestampParser.isDecimalInteger("-")).isFalse();
    assertThat(TimestampParser.isDecimalInteger("")).isFalse();
    assertThat(TimestampParser.isDecimalInteger("12a")).isFalse();
  }
}
