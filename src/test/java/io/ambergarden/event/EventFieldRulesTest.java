package io.ambergarden.event;

import static io.ambergarden.event.Events.NOW;
import static io.ambergarden.event.Events.errors;
import static io.ambergarden.event.Events.ev;
import static io.ambergarden.event.Events.onlyError;
import static io.ambergarden.event.Events.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.time.Duration;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EventFieldRulesTest {

  private static String withId(String jsonValue) {
    return "{\"deviceId\":" + jsonValue + ",\"ts\":" + NOW + "}";
  }

  private static String withTs(String jsonValue) {
    return "{\"deviceId\":\"d1\",\"ts\":" + jsonValue + "}";
  }

  @Nested
  class DeviceId {
    @Test
    void isRequired() {
      FieldError e = onlyError("{\"ts\":" + NOW + "}");
      assertThat(e).isEqualTo(new FieldError(0, "deviceId", "is required"));
    }

    @Test
    void nullCountsAsMissing() {
      assertThat(onlyError(withId("null"))).isEqualTo(new FieldError(0, "deviceId", "is required"));
    }

    @Test
    void mustBeAString() {
      assertThat(onlyError(withId("42")).message()).isEqualTo("must be a string");
      assertThat(onlyError(withId("{\"a\":1}")).field()).isEqualTo("deviceId");
      assertThat(onlyError(withId("[\"x\"]")).field()).isEqualTo("deviceId");
    }

    @Test
    void acceptsTheWholeCharsetUpToTheMaximumLength() {
      String id = "Az09._:-" + "x".repeat(120);
      assertThat(id).hasSize(128);
      assertThat(valid(withId("\"" + id + "\"")).deviceId()).isEqualTo(id);
      assertThat(valid(withId("\"a..b\"")).deviceId()).isEqualTo("a..b");
    }

    @Test
    void rejectsEmptyAndOversizedIds() {
      assertThat(onlyError(withId("\"\"")).message()).contains("1-128").contains("got 0");
      FieldError e = onlyError(withId("\"" + "x".repeat(129) + "\""));
      assertThat(e.field()).isEqualTo("deviceId");
      assertThat(e.message()).contains("1-128").contains("got 129");
    }

    @ParameterizedTest
    @ValueSource(
        strings = {
          "a b",
          "'; DROP TABLE events; --",
          "../etc/passwd",
          "a/b",
          "a\\\\b",
          "caf\\u00e9",
          "d\\u0000",
          "d\\u0001",
          "d\\t",
          "d\\u2028",
          "\\u0434\\u0435\\u0432",
          "x\\\"y",
          "a,b",
          "a@b",
          "\\ud83d\\ude00"
        })
    void rejectsCharactersOutsideTheCharset(String raw) {
      FieldError e = onlyError(withId("\"" + raw + "\""));
      assertThat(e.field()).isEqualTo("deviceId");
      assertThat(e.message()).contains("letters, digits and . _ : -").contains("invalid character");
    }

    @Test
    void namesTheOffendingCharacterWithoutEchoingControlCharacters() {
      assertThat(onlyError(withId("\"ab'c\"")).message()).contains("'''").contains("position 2");
      assertThat(onlyError(withId("\"ab\\u0007\"")).message())
          .contains("U+0007")
          .doesNotContain("\u0007");
      assertThat(onlyError(withId("\"\\ud83d\\ude00\"")).message()).contains("U+1F600");
    }

    @ParameterizedTest
    @ValueSource(strings = {".", ".."})
    void rejectsDotAndDotDot(String id) {
      assertThat(onlyError(withId("\"" + id + "\"")))
          .isEqualTo(new FieldError(0, "deviceId", "must not be '.' or '..'"));
    }
  }

  @Nested
  class EventId {
    @Test
    void isEmptyWhenAbsentOrNull() {
      assertThat(valid(ev("")).eventId()).isEmpty();
      assertThat(valid(ev("\"eventId\":null")).eventId()).isEmpty();
    }

    @Test
    void followsTheIdRules() {
      assertThat(valid(ev("\"eventId\":\"e-1:2.3_x\"")).eventId()).isEqualTo("e-1:2.3_x");
      assertThat(onlyError(ev("\"eventId\":\"\"")).field()).isEqualTo("eventId");
      assertThat(onlyError(ev("\"eventId\":\"" + "e".repeat(129) + "\"")).field())
          .isEqualTo("eventId");
      assertThat(onlyError(ev("\"eventId\":\"a b\"")).field()).isEqualTo("eventId");
      assertThat(onlyError(ev("\"eventId\":\"..\"")).field()).isEqualTo("eventId");
      assertThat(onlyError(ev("\"eventId\":7")))
          .isEqualTo(new FieldError(0, "eventId", "must be a string"));
    }
  }

  @Nested
  class Ts {
    @Test
    void isRequired() {
      assertThat(onlyError("{\"deviceId\":\"d1\"}"))
          .isEqualTo(new FieldError(0, "ts", "is required"));
      assertThat(onlyError(withTs("null"))).isEqualTo(new FieldError(0, "ts", "is required"));
    }

    @Test
    void acceptsEpochMillisInsideTheWindow() {
      assertThat(valid(withTs(Long.toString(NOW))).ts()).isEqualTo(NOW);
      long oldest = NOW - Duration.ofDays(180).toMillis();
      long newest = NOW + Duration.ofMinutes(5).toMillis();
      assertThat(valid(withTs(Long.toString(oldest))).ts()).isEqualTo(oldest);
      assertThat(valid(withTs(Long.toString(newest))).ts()).isEqualTo(newest);
    }

    @Test
    void acceptsIsoWithZOrAnOffsetAndFractionalSeconds() {
      assertThat(valid(withTs("\"2026-07-15T00:00:00Z\"")).ts()).isEqualTo(NOW);
      assertThat(valid(withTs("\"2026-07-15T08:00:00+08:00\"")).ts()).isEqualTo(NOW);
      assertThat(valid(withTs("\"2026-07-14T19:00:00-05:00\"")).ts()).isEqualTo(NOW);
      assertThat(valid(withTs("\"2026-07-14T23:59:59.123Z\"")).ts()).isEqualTo(NOW - 877);
      assertThat(valid(withTs("\"2026-07-14T23:59:59.123456789Z\"")).ts()).isEqualTo(NOW - 877);
    }

    @Test
    void rejectsFloats() {
      assertThat(onlyError(withTs("1.5e12")))
          .isEqualTo(new FieldError(0, "ts", "must be an integer (epoch milliseconds)"));
      assertThat(onlyError(withTs(NOW + ".5")).message()).contains("must be an integer");
      assertThat(onlyError(withTs(NOW + ".0")).message()).contains("must be an integer");
    }

    @Test
    void rejectsNumbersBeyondSixtyFourBits() {
      assertThat(onlyError(withTs("9223372036854775808")))
          .isEqualTo(new FieldError(0, "ts", "is out of range (must fit a signed 64-bit integer)"));
      assertThat(onlyError(withTs("-99999999999999999999999")).message()).contains("out of range");
      assertThat(onlyError(withTs("9223372036854775807")).message()).contains("future");
    }

    @Test
    void rejectsIsoWithoutAnOffset() {
      FieldError e = onlyError(withTs("\"2026-07-15T00:00:00\""));
      assertThat(e.field()).isEqualTo("ts");
      assertThat(e.message()).contains("offset");
      assertThat(onlyError(withTs("\"2026-07-15T00:00:00.250\"")).message()).contains("offset");
      assertThat(onlyError(withTs("\"2026-07-15\"")).message()).contains("time").contains("offset");
    }

    @Test
    void rejectsNumericStrings() {
      FieldError e = onlyError(withTs("\"" + NOW + "\""));
      assertThat(e.field()).isEqualTo("ts");
      assertThat(e.message()).contains("JSON number").contains("not a numeric string");
    }

    @ParameterizedTest
    @ValueSource(
        strings = {
          "\"yesterday\"",
          "\"\"",
          "\"2026-13-45T00:00:00Z\"",
          "\"15/07/2026 00:00\"",
          "\"2026-07-15 00:00:00Z\""
        })
    void rejectsTextThatIsNotIso8601(String value) {
      FieldError e = onlyError(withTs(value));
      assertThat(e.field()).isEqualTo("ts");
      assertThat(e.message()).containsAnyOf("ISO-8601", "empty");
    }

    @ParameterizedTest
    @ValueSource(strings = {"true", "{}", "[1]", "{\"a\":[1,2]}"})
    void rejectsOtherTypes(String value) {
      assertThat(onlyError(withTs(value)))
          .isEqualTo(
              new FieldError(
                  0,
                  "ts",
                  "must be epoch milliseconds (a JSON number) or an ISO-8601 string with offset"));
    }

    @Test
    void rejectsTheFarFutureNamingTheBound() {
      long tooNew = NOW + Duration.ofMinutes(5).toMillis() + 1;
      assertThat(onlyError(withTs(Long.toString(tooNew))))
          .isEqualTo(
              new FieldError(
                  0, "ts", "is too far in the future (more than 5 minutes ahead of server time)"));
      assertThat(onlyError(withTs("\"2030-01-01T00:00:00Z\"")).message()).contains("future");
    }

    @Test
    void rejectsTimestampsOlderThanTheRetentionNamingTheBound() {
      long tooOld = NOW - Duration.ofDays(180).toMillis() - 1;
      assertThat(onlyError(withTs(Long.toString(tooOld))))
          .isEqualTo(new FieldError(0, "ts", "is older than the retention of 180 days"));
      assertThat(onlyError(withTs("\"2020-01-01T00:00:00Z\"")).message())
          .contains("older than the retention");
      assertThat(onlyError(withTs("0")).message()).contains("older than the retention");
      assertThat(onlyError(withTs("-1")).message()).contains("older than the retention");
    }

    @Test
    void hintsAtEpochSecondsWhenTheValueTimesAThousandWouldFit() {
      assertThat(onlyError(withTs(Long.toString(NOW / 1000))))
          .isEqualTo(new FieldError(0, "ts", "looks like epoch seconds; send epoch milliseconds"));
      // a 2025-07-15 timestamp in seconds is older than the retention even as millis
      assertThat(onlyError(withTs("1752537600")).message()).contains("older than the retention");
    }

    @Test
    void hintsAtEpochMicroseconds() {
      assertThat(onlyError(withTs(Long.toString(NOW * 1000))).message()).contains("microseconds");
    }

    @Test
    void followsTheClock() {
      EventParser later =
          new EventParser(
              EventLimits.defaults(),
              java.time.Clock.fixed(
                  Events.NOW_INSTANT.plus(Duration.ofDays(365)), java.time.ZoneOffset.UTC));
      EventParser.BatchResult r = later.parseBatch(Events.utf8(ev("")), BodyFormat.JSON);
      assertThat(r.errors())
          .extracting(FieldError::field, FieldError::message)
          .containsExactly(tuple("ts", "is older than the retention of 180 days"));
    }
  }

  @Nested
  class DeviceType {
    @Test
    void isOptionalAndFollowsTheCharset() {
      assertThat(valid(ev("")).deviceType()).isNull();
      assertThat(valid(ev("\"deviceType\":null")).deviceType()).isNull();
      assertThat(valid(ev("\"deviceType\":\"charger\"")).deviceType()).isEqualTo("charger");
      assertThat(onlyError(ev("\"deviceType\":\"a/b\"")).field()).isEqualTo("deviceType");
      assertThat(onlyError(ev("\"deviceType\":\"\"")).field()).isEqualTo("deviceType");
      assertThat(onlyError(ev("\"deviceType\":\"..\"")).field()).isEqualTo("deviceType");
      assertThat(onlyError(ev("\"deviceType\":1")).message()).isEqualTo("must be a string");
    }

    @Test
    void isAtMost64Characters() {
      assertThat(valid(ev("\"deviceType\":\"" + "t".repeat(64) + "\"")).deviceType()).hasSize(64);
      assertThat(onlyError(ev("\"deviceType\":\"" + "t".repeat(65) + "\"")).message())
          .contains("1-64");
    }
  }

  @Nested
  class Status {
    @Test
    void isOptionalPrintableAsciiUpTo32() {
      assertThat(valid(ev("\"status\":null")).status()).isNull();
      assertThat(valid(ev("\"status\":\"out of paper!\"")).status()).isEqualTo("out of paper!");
      assertThat(valid(ev("\"status\":\"" + "s".repeat(32) + "\"")).status()).hasSize(32);
      assertThat(onlyError(ev("\"status\":\"" + "s".repeat(33) + "\"")))
          .isEqualTo(new FieldError(0, "status", "must be 1-32 characters (got 33)"));
      assertThat(onlyError(ev("\"status\":\"\"")).message()).contains("1-32");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\\nb", "a\\u0000", "a\\u007f", "caf\\u00e9", "\\ud83d\\ude00"})
    void rejectsControlAndNonAsciiCharacters(String raw) {
      FieldError e = onlyError(ev("\"status\":\"" + raw + "\""));
      assertThat(e.field()).isEqualTo("status");
      assertThat(e.message()).contains("printable ASCII without control characters");
    }

    @Test
    void mustBeAString() {
      assertThat(onlyError(ev("\"status\":7")))
          .isEqualTo(new FieldError(0, "status", "must be a string"));
      assertThat(onlyError(ev("\"status\":[\"a\"]")).field()).isEqualTo("status");
    }
  }

  @Nested
  class Code {
    @Test
    void isAnOptionalIntegerFromZeroTo999999() {
      assertThat(valid(ev("")).code()).isNull();
      assertThat(valid(ev("\"code\":null")).code()).isNull();
      assertThat(valid(ev("\"code\":0")).code()).isZero();
      assertThat(valid(ev("\"code\":999999")).code()).isEqualTo(999_999);
      assertThat(onlyError(ev("\"code\":1000000")))
          .isEqualTo(new FieldError(0, "code", "must be an integer in 0..999999"));
      assertThat(onlyError(ev("\"code\":-1")).message()).contains("0..999999");
    }

    @ParameterizedTest
    @ValueSource(
        strings = {"200.5", "2e2", "200.0", "\"200\"", "true", "[200]", "{\"v\":200}", "NaN"})
    void rejectsNonIntegers(String value) {
      assertThat(onlyError(ev("\"code\":" + value)))
          .isEqualTo(new FieldError(0, "code", "must be an integer"));
    }

    @ParameterizedTest
    @ValueSource(
        strings = {
          "9223372036854775808",
          "99999999999999999999999999999",
          "2147483648",
          "-2147483649"
        })
    void rejectsHugeNumbers(String value) {
      assertThat(onlyError(ev("\"code\":" + value)))
          .isEqualTo(new FieldError(0, "code", "must be an integer in 0..999999"));
    }
  }

  @Nested
  class Metrics {
    @Test
    void mapsNamesToDoublesInInsertionOrder() {
      Event e =
          valid(
              ev(
                  "\"metrics\":{\"temperature\":36.5,\"count\":3,\"neg\":-1.25e-3,\"big\":12345678901234567890}"));
      assertThat(e.metrics())
          .containsExactly(
              java.util.Map.entry("temperature", 36.5), java.util.Map.entry("count", 3.0),
              java.util.Map.entry("neg", -1.25e-3),
                  java.util.Map.entry("big", 1.2345678901234567e19));
    }

    @Test
    void anEmptyOrNullObjectMeansNoMetrics() {
      assertThat(valid(ev("\"metrics\":{}")).metrics()).isEmpty();
      assertThat(valid(ev("\"metrics\":null")).metrics()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"NaN", "Infinity", "-Infinity", "1e400", "-1e400"})
    void rejectsNonFiniteNumbersAsAFieldError(String value) {
      assertThat(onlyError(ev("\"metrics\":{\"temperature\":" + value + "}")))
          .isEqualTo(
              new FieldError(
                  0,
                  "metrics.temperature",
                  "must be a finite number (NaN and Infinity are not allowed)"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"36.5\"", "true", "null", "[1]", "{\"v\":1}"})
    void rejectsValuesThatAreNotNumbers(String value) {
      assertThat(onlyError(ev("\"metrics\":{\"temperature\":" + value + "}")))
          .isEqualTo(new FieldError(0, "metrics.temperature", "must be a finite number"));
    }

    @Test
    void mustBeAnObject() {
      assertThat(onlyError(ev("\"metrics\":[1,2]")))
          .isEqualTo(new FieldError(0, "metrics", "must be an object of name -> number"));
      assertThat(onlyError(ev("\"metrics\":5")).field()).isEqualTo("metrics");
    }

    @Test
    void namesFollowTheCharsetAndLength() {
      assertThat(onlyError(ev("\"metrics\":{\"a b\":1}")).field()).isEqualTo("metrics.a b");
      assertThat(onlyError(ev("\"metrics\":{\"a b\":1}")).message())
          .startsWith("metric names must be 1-64");
      assertThat(onlyError(ev("\"metrics\":{\"\":1}")).field()).isEqualTo("metrics.");
      String longName = "m".repeat(65);
      assertThat(onlyError(ev("\"metrics\":{\"" + longName + "\":1}")).field())
          .isEqualTo("metrics." + longName);
      assertThat(valid(ev("\"metrics\":{\"" + "m".repeat(64) + "\":1}")).metrics()).hasSize(1);
    }

    @Test
    void escapesControlCharactersInTheReportedFieldName() {
      FieldError e = onlyError(ev("\"metrics\":{\"a\\u0001b\":1}"));
      assertThat(e.field()).isEqualTo("metrics.a\\u0001b");
    }

    @Test
    void truncatesAHugeNameInTheReportedField() {
      FieldError e = onlyError(ev("\"metrics\":{\"" + "m".repeat(5000) + "\":1}"));
      assertThat(e.field()).hasSizeLessThan(100).endsWith("...");
    }

    @Test
    void allowsAtMost64() {
      String ok =
          IntStream.range(0, 64)
              .mapToObj(i -> "\"m" + i + "\":" + i)
              .collect(Collectors.joining(","));
      assertThat(valid(ev("\"metrics\":{" + ok + "}")).metrics()).hasSize(64);
      FieldError e = onlyError(ev("\"metrics\":{" + ok + ",\"m64\":1,\"m65\":2}"));
      assertThat(e).isEqualTo(new FieldError(0, "metrics", "too many metrics: at most 64"));
    }

    @Test
    void rejectsDuplicateNames() {
      assertThat(onlyError(ev("\"metrics\":{\"t\":1,\"t\":2}")))
          .isEqualTo(new FieldError(0, "metrics.t", "duplicate metric name"));
    }
  }

  @Nested
  class Tags {
    @Test
    void mapNamesToText() {
      Event e =
          valid(
              ev("\"tags\":{\"site\":\"plant-3\",\"note\":\"caf\u00e9 \\u2603 \\ud83d\\ude00\"}"));
      assertThat(e.tags())
          .containsExactly(
              java.util.Map.entry("site", "plant-3"),
              java.util.Map.entry("note", "caf\u00e9 \u2603 \ud83d\ude00"));
      assertThat(valid(ev("\"tags\":null")).tags()).isEmpty();
    }

    @Test
    void valuesMustBeStrings() {
      assertThat(onlyError(ev("\"tags\":{\"site\":3}")))
          .isEqualTo(new FieldError(0, "tags.site", "must be a string"));
      assertThat(onlyError(ev("\"tags\":{\"site\":null}")).field()).isEqualTo("tags.site");
      assertThat(onlyError(ev("\"tags\":{\"site\":{\"a\":\"b\"}}")).field()).isEqualTo("tags.site");
    }

    @Test
    void valuesAre1To256CharactersWithoutControlCharacters() {
      assertThat(valid(ev("\"tags\":{\"site\":\"" + "v".repeat(256) + "\"}")).tags().get("site"))
          .hasSize(256);
      assertThat(onlyError(ev("\"tags\":{\"site\":\"" + "v".repeat(257) + "\"}")))
          .isEqualTo(new FieldError(0, "tags.site", "must be 1-256 characters (got 257)"));
      assertThat(onlyError(ev("\"tags\":{\"site\":\"\"}")).field()).isEqualTo("tags.site");
      assertThat(onlyError(ev("\"tags\":{\"site\":\"a\\nb\"}")).message())
          .contains("control characters");
      assertThat(onlyError(ev("\"tags\":{\"site\":\"a\\u0085b\"}")).message())
          .contains("control characters");
      assertThat(onlyError(ev("\"tags\":{\"site\":\"a\\ud800b\"}")).message())
          .contains("unpaired surrogate");
    }

    @Test
    void namesFollowTheCharsetAndLength() {
      assertThat(onlyError(ev("\"tags\":{\"a/b\":\"x\"}")).field()).isEqualTo("tags.a/b");
      assertThat(onlyError(ev("\"tags\":{\"a/b\":\"x\"}")).message())
          .startsWith("tag names must be 1-64");
      assertThat(onlyError(ev("\"tags\":{\"" + "k".repeat(65) + "\":\"x\"}")).message())
          .contains("1-64");
    }

    @Test
    void mustBeAnObjectOfAtMost32() {
      assertThat(onlyError(ev("\"tags\":\"x\"")))
          .isEqualTo(new FieldError(0, "tags", "must be an object of name -> string"));
      String ok =
          IntStream.range(0, 32)
              .mapToObj(i -> "\"t" + i + "\":\"v\"")
              .collect(Collectors.joining(","));
      assertThat(valid(ev("\"tags\":{" + ok + "}")).tags()).hasSize(32);
      assertThat(onlyError(ev("\"tags\":{" + ok + ",\"t32\":\"v\"}")))
          .isEqualTo(new FieldError(0, "tags", "too many tags: at most 32"));
    }

    @Test
    void rejectDuplicateNames() {
      assertThat(onlyError(ev("\"tags\":{\"a\":\"x\",\"a\":\"y\"}")))
          .isEqualTo(new FieldError(0, "tags.a", "duplicate key"));
    }
  }

  @Nested
  class Payload {
    @Test
    void isStoredAsCompactJson() {
      assertThat(
              valid(
                      ev(
                          "\"payload\": { \"a\" : [ 1 , 2.50 , -3e-7 , true , false , null , \"s\\n\\u00e9\" ] , \"b\" : { } }"))
                  .payload())
          .isEqualTo("{\"a\":[1,2.50,-3e-7,true,false,null,\"s\\n\u00e9\"],\"b\":{}}");
    }

    @Test
    void mayBeAnyJsonValue() {
      assertThat(valid(ev("\"payload\":\"text\"")).payload()).isEqualTo("\"text\"");
      assertThat(valid(ev("\"payload\":42")).payload()).isEqualTo("42");
      assertThat(valid(ev("\"payload\":[]")).payload()).isEqualTo("[]");
      assertThat(valid(ev("\"payload\":false")).payload()).isEqualTo("false");
      assertThat(valid(ev("\"payload\":null")).payload()).isNull();
    }

    @Test
    void keepsNumbersExactly() {
      assertThat(
              valid(
                      ev(
                          "\"payload\":[1e400,123456789012345678901234567890,0.1000000000000000055511151231257827]"))
                  .payload())
          .isEqualTo("[1e400,123456789012345678901234567890,0.1000000000000000055511151231257827]");
    }

    @Test
    void isCappedOnTheCompactForm() {
      // 16384 bytes exactly: a string of 16382 chars plus its quotes
      assertThat(valid(ev("\"payload\":\"" + "x".repeat(16_382) + "\"")).payload()).hasSize(16_384);
      assertThat(onlyError(ev("\"payload\":\"" + "x".repeat(16_383) + "\"")))
          .isEqualTo(
              new FieldError(
                  0, "payload", "payload too large: more than 16384 bytes as compact JSON"));
      // whitespace does not count, multi-byte characters count as their UTF-8 bytes
      assertThat(valid(ev("\"payload\":[" + " 1 ,".repeat(4000) + " 1 ]")).payload()).hasSize(8003);
      assertThat(onlyError(ev("\"payload\":\"" + "\u00e9".repeat(8192) + "\"")).field())
          .isEqualTo("payload");
    }

    @Test
    void rejectsNonFiniteNumbersWithTheirPath() {
      assertThat(onlyError(ev("\"payload\":{\"a\":[1,{\"b\":NaN}]}")))
          .isEqualTo(
              new FieldError(
                  0,
                  "payload.a[1].b",
                  "must be a finite number (NaN and Infinity are not allowed)"));
      assertThat(onlyError(ev("\"payload\":-Infinity")).field()).isEqualTo("payload");
    }

    @Test
    void rejectsDuplicateKeysWithTheirPath() {
      assertThat(onlyError(ev("\"payload\":{\"x\":{\"a\":1,\"a\":2}}")))
          .isEqualTo(new FieldError(0, "payload.x.a", "duplicate key"));
      assertThat(valid(ev("\"payload\":[{\"a\":1},{\"a\":2}]")).payload())
          .isEqualTo("[{\"a\":1},{\"a\":2}]");
    }
  }

  @Nested
  class FlatForm {
    @Test
    void flatFormTopLevelNumbersBecomeMetrics() {
      Event e =
          valid(
              "{\"deviceId\":\"d1\",\"ts\":"
                  + NOW
                  + ",\"temperature\":36.5,\"vibration\":0.02,\"current\":3,\"status\":\"normal\"}");
      assertThat(e.metrics())
          .containsExactly(
              java.util.Map.entry("temperature", 36.5),
              java.util.Map.entry("vibration", 0.02),
              java.util.Map.entry("current", 3.0));
      assertThat(e.status()).isEqualTo("normal");
    }

    @Test
    void mixesWithTheMetricsObjectInDocumentOrder() {
      Event e = valid(ev("\"a\":1,\"metrics\":{\"b\":2},\"c\":3"));
      assertThat(e.metrics().keySet()).containsExactly("a", "b", "c");
    }

    @Test
    void aNameGivenTwiceIsADuplicate() {
      assertThat(onlyError(ev("\"temperature\":1,\"metrics\":{\"temperature\":2}")))
          .isEqualTo(new FieldError(0, "metrics.temperature", "duplicate metric name"));
      assertThat(onlyError(ev("\"metrics\":{\"temperature\":2},\"temperature\":1")))
          .isEqualTo(new FieldError(0, "temperature", "duplicate metric name"));
      assertThat(onlyError(ev("\"temperature\":1,\"temperature\":2")).field())
          .isEqualTo("temperature");
    }

    @Test
    void flatMetricsFollowTheMetricRules() {
      assertThat(onlyError(ev("\"temperature\":NaN")).field()).isEqualTo("temperature");
      assertThat(onlyError(ev("\"temperature\":NaN")).message()).contains("finite");
      assertThat(onlyError(ev("\"a b\":1")).field()).isEqualTo("a b");
      String many =
          IntStream.range(0, 65)
              .mapToObj(i -> "\"m" + i + "\":" + i)
              .collect(Collectors.joining(","));
      assertThat(onlyError(ev(many)))
          .isEqualTo(new FieldError(0, "metrics", "too many metrics: at most 64"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"red\"", "true", "null", "[1]", "{\"a\":1}"})
    void anUnknownFieldThatIsNotANumberIsRejected(String value) {
      assertThat(onlyError(ev("\"colour\":" + value)))
          .isEqualTo(new FieldError(0, "colour", "unknown field"));
    }

    @Test
    void aKnownFieldInTheWrongCaseIsNotTakenForAMetric() {
      FieldError e = errors("{\"deviceId\":\"d1\",\"TS\":" + NOW + "}").get(0);
      assertThat(e).isEqualTo(new FieldError(0, "TS", "unknown field (did you mean \"ts\"?)"));
    }
  }

  @Nested
  class Duplicates {
    @ParameterizedTest
    @ValueSource(
        strings = {
          "deviceId",
          "eventId",
          "deviceType",
          "status",
          "code",
          "metrics",
          "tags",
          "payload"
        })
    void aKnownFieldGivenTwiceIsReported(String field) {
      String value =
          switch (field) {
            case "code" -> "1";
            case "metrics", "tags", "payload" -> "{}";
            default -> "\"x\"";
          };
      String body =
          "{\"deviceId\":\"d1\",\"ts\":"
              + NOW
              + ",\""
              + field
              + "\":"
              + value
              + ",\""
              + field
              + "\":"
              + value
              + "}";
      if (field.equals("deviceId")) {
        body = "{\"deviceId\":\"d1\",\"ts\":" + NOW + ",\"deviceId\":\"d2\"}";
      }
      assertThat(onlyError(body)).isEqualTo(new FieldError(0, field, "duplicate key"));
    }

    @Test
    void tsGivenTwiceIsReported() {
      assertThat(onlyError(ev("\"ts\":" + NOW)))
          .isEqualTo(new FieldError(0, "ts", "duplicate key"));
    }
  }

  @Test
  void everyProblemOfOneEventIsReportedInDocumentOrder() {
    assertThat(
            errors(
                "{\"deviceId\":\"a b\",\"status\":7,\"code\":1.5,\"metrics\":{\"t\":\"x\"},\"tags\":{\"s\":1},\"foo\":\"bar\"}"))
        .extracting(FieldError::index, FieldError::field)
        .containsExactly(
            tuple(0, "deviceId"),
            tuple(0, "status"),
            tuple(0, "code"),
            tuple(0, "metrics.t"),
            tuple(0, "tags.s"),
            tuple(0, "foo"),
            tuple(0, "ts"));
  }
}
