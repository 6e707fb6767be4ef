package io.ambergarden.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EventParserTest {
  static final long NOW = Instant.parse("2026-07-15T00:00:00Z").toEpochMilli();
  final EventParser parser =
      new EventParser(
          EventLimits.defaults(), Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC));

  private EventParser.BatchResult json(String body) {
    return parser.parseBatch(body.getBytes(StandardCharsets.UTF_8), BodyFormat.JSON);
  }

  private List<FieldError> errorsOf(String event) {
    EventParser.BatchResult r = json(event);
    assertThat(r.ok()).as("expected errors for %s", event).isFalse();
    assertThat(r.events()).isEmpty();
    return r.errors();
  }

  private static String ev(String extra) {
    return "{\"deviceId\":\"M-10086\",\"ts\":" + NOW + (extra.isEmpty() ? "" : "," + extra) + "}";
  }

  @Test
  void aFullEventParsesIntoTheModel() {
    EventParser.BatchResult r =
        json(
            "{\"deviceId\":\"M-10086\",\"ts\":"
                + NOW
                + ",\"deviceType\":\"charger\","
                + "\"status\":\"normal\",\"code\":200,\"metrics\":{\"temperature\":36.5,\"count\":3},"
                + "\"tags\":{\"site\":\"plant-3\"},\"payload\":{\"a\": [1, 2, {\"b\": null}]},\"eventId\":\"e-1\"}");
    assertThat(r.errors()).isEmpty();
    Event e = r.events().get(0);
    assertThat(e.deviceId()).isEqualTo("M-10086");
    assertThat(e.ts()).isEqualTo(NOW);
    assertThat(e.code()).isEqualTo(200);
    assertThat(e.metrics()).containsEntry("temperature", 36.5).containsEntry("count", 3.0);
    assertThat(e.tags()).containsEntry("site", "plant-3");
    assertThat(e.payload()).isEqualTo("{\"a\":[1,2,{\"b\":null}]}");
    assertThat(e.eventId()).isEqualTo("e-1");
  }

  @Test
  void theCanonicalJsonRoundTrips() {
    Event e =
        json(ev("\"status\":\"fault\",\"code\":503,\"metrics\":{\"v\":-1.25e-3},\"payload\":\"x\""))
            .events()
            .get(0);
    EventParser.SingleResult back = parser.parseOne(EventJson.toJsonBytes(e));
    assertThat(back.errors()).isEmpty();
    assertThat(back.event()).isEqualTo(e);
  }

  @Test
  void aMissingEventIdIsEmpty() {
    assertThat(json(ev("")).events().get(0).eventId()).isEmpty();
  }

  @Test
  void flatFormTurnsTopLevelNumbersIntoMetrics() {
    Event e =
        json("{\"deviceId\":\"d1\",\"ts\":"
                + NOW
                + ",\"temperature\":36.5,\"vibration\":0.02,\"current\":3.1,"
                + "\"status\":\"normal\"}")
            .events()
            .get(0);
    assertThat(e.metrics()).containsOnlyKeys("temperature", "vibration", "current");
    assertThat(e.status()).isEqualTo("normal");
  }

  @Test
  void isoTimestampsWithAnOffsetAreAccepted() {
    assertThat(
            json("{\"deviceId\":\"d\",\"ts\":\"2026-07-15T08:00:00+08:00\"}").events().get(0).ts())
        .isEqualTo(NOW);
    assertThat(json("{\"deviceId\":\"d\",\"ts\":\"2026-07-14T23:59:59.5Z\"}").events().get(0).ts())
        .isEqualTo(NOW - 500);
  }

  @ParameterizedTest(name = "{0} is rejected naming {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"ts\":1752537600000}|deviceId|required",
        "{\"deviceId\":\"d\"}|ts|required",
        "{\"deviceId\":42,\"ts\":NOW}|deviceId|string",
        "{\"deviceId\":\"\",\"ts\":NOW}|deviceId|1-128",
        "{\"deviceId\":\"a b\",\"ts\":NOW}|deviceId|letters",
        "{\"deviceId\":\"'; DROP TABLE x\",\"ts\":NOW}|deviceId|letters",
        "{\"deviceId\":\"../etc\",\"ts\":NOW}|deviceId|letters",
        "{\"deviceId\":\"..\",\"ts\":NOW}|deviceId|'..'",
        "{\"deviceId\":\"d\\u00e9\",\"ts\":NOW}|deviceId|letters",
        "{\"deviceId\":\"d\\u0001\",\"ts\":NOW}|deviceId|letters",
        "{\"deviceId\":\"d\",\"ts\":\"NOW\"}|ts|JSON number",
        "{\"deviceId\":\"d\",\"ts\":1.5e12}|ts|integer",
        "{\"deviceId\":\"d\",\"ts\":99999999999999999999}|ts|out of range",
        "{\"deviceId\":\"d\",\"ts\":\"2026-07-15T00:00:00\"}|ts|offset",
        "{\"deviceId\":\"d\",\"ts\":\"yesterday\"}|ts|ISO-8601",
        "{\"deviceId\":\"d\",\"ts\":true}|ts|epoch",
        "{\"deviceId\":\"d\",\"ts\":1799999999999}|ts|future",
        "{\"deviceId\":\"d\",\"ts\":1000}|ts|older than the retention",
        "{\"deviceId\":\"d\",\"ts\":1784073600}|ts|seconds",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"code\":\"200\"}|code|integer",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"code\":200.5}|code|integer",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"code\":2e2}|code|integer",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"code\":9223372036854775808}|code|0..999999",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"code\":-1}|code|0..999999",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"status\":7}|status|string",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"status\":\"a\\nb\"}|status|control",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"status\":\"012345678901234567890123456789xyz\"}|status|1-32",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"deviceType\":\"a/b\"}|deviceType|letters",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"eventId\":\"\"}|eventId|1-128",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"metrics\":[1]}|metrics|object",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"metrics\":{\"t\":\"36.5\"}}|metrics.t|finite",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"metrics\":{\"t\":null}}|metrics.t|finite",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"metrics\":{\"t\":1e400}}|metrics.t|finite",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"metrics\":{\"a b\":1}}|metrics.a b|names",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"tags\":{\"site\":3}}|tags.site|string",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"tags\":\"x\"}|tags|object",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"colour\":\"red\"}|colour|unknown",
        "{\"deviceId\":\"d\",\"ts\":NOW,\"temperature\":1,\"metrics\":{\"temperature\":2}}|metrics.temperature|duplicate",
        "{\"deviceId\":\"d\",\"deviceId\":\"e\",\"ts\":NOW}|deviceId|duplicate",
      })
  void everyRuleNamesTheField(String event, String field, String messagePart) {
    List<FieldError> errors = errorsOf(event.replace("NOW", Long.toString(NOW)));
    assertThat(errors)
        .anySatisfy(
            e -> {
              assertThat(e.field()).isEqualTo(field);
              assertThat(e.message()).contains(messagePart);
              assertThat(e.index()).isZero();
            });
  }

  @Test
  void nanIsAFieldErrorNotAnException() {
    assertThat(errorsOf(ev("\"metrics\":{\"t\":NaN}")))
        .extracting(FieldError::field)
        .containsExactly("metrics.t");
  }

  @Test
  void aTooLargePayloadIsRejected() {
    String big = "\"" + "x".repeat(17_000) + "\"";
    assertThat(errorsOf(ev("\"payload\":" + big)))
        .extracting(FieldError::field)
        .containsExactly("payload");
  }

  @Test
  void deepNestingIsRejected() {
    String deep = "[".repeat(40) + "]".repeat(40);
    assertThat(errorsOf(ev("\"payload\":" + deep)).get(0).message()).contains("nested deeper");
  }

  @Test
  void malformedUtf8IsRejectedAsADocumentError() {
    byte[] bad =
        ("{\"deviceId\":\"d\",\"ts\":" + NOW + ",\"status\":\"x\"}")
            .getBytes(StandardCharsets.UTF_8);
    bad[bad.length - 3] = (byte) 0xC3; // a lead byte followed by an ASCII quote
    EventParser.SingleResult r = parser.parseOne(bad);
    assertThat(r.ok()).isFalse();
    assertThat(r.errors().get(0).message()).contains("UTF-8");
    assertThat(
            parser
                .parseOne(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80})
                .errors()
                .get(0)
                .message())
        .contains("UTF-8");
  }

  @Test
  void malformedJsonAndEmptyBodiesAreDocumentErrors() {
    assertThat(errorsOf("{\"deviceId\":").get(0).field()).isEqualTo("$");
    assertThat(errorsOf("   ").get(0).message()).isEqualTo("empty body");
    assertThat(errorsOf("[]").get(0).message()).isEqualTo("empty array");
    assertThat(errorsOf("42").get(0).field()).isEqualTo("$");
    assertThat(errorsOf(ev("") + " {}").get(0).message()).contains("after");
  }

  @Test
  void aBatchIsValidatedWholeAndReportsEveryErrorWithItsIndex() {
    EventParser.BatchResult r =
        json("[" + ev("") + ",{\"deviceId\":\"x\"}," + ev("") + ",7,{\"ts\":\"bad\"}]");
    assertThat(r.events()).isEmpty();
    assertThat(r.errors())
        .extracting(FieldError::index, FieldError::field)
        .contains(
            org.assertj.core.groups.Tuple.tuple(1, "ts"),
            org.assertj.core.groups.Tuple.tuple(3, "$"),
            org.assertj.core.groups.Tuple.tuple(4, "deviceId"),
            org.assertj.core.groups.Tuple.tuple(4, "ts"));
  }

  @Test
  void aBatchOverTheCapIsRejectedWithoutParsingItAll() {
    String one = ev("");
    String body = "[" + String.join(",", java.util.Collections.nCopies(1001, one)) + ",{broken";
    List<FieldError> errors = errorsOf(body);
    assertThat(errors).hasSize(1);
    assertThat(errors.get(0).message()).contains("more than 1000");
  }

  @Test
  void ndjsonSkipsBlankLinesAndIndexesEvents() {
    String body = ev("") + "\n\n  \n" + "{\"deviceId\":\"d2\",\"ts\":" + NOW + "}\r\n";
    EventParser.BatchResult ok =
        parser.parseBatch(body.getBytes(StandardCharsets.UTF_8), BodyFormat.NDJSON);
    assertThat(ok.errors()).isEmpty();
    assertThat(ok.events()).extracting(Event::deviceId).containsExactly("M-10086", "d2");
    EventParser.BatchResult bad =
        parser.parseBatch(
            (ev("") + "\n{\"deviceId\":1,\"ts\":" + NOW + "}").getBytes(StandardCharsets.UTF_8),
            BodyFormat.NDJSON);
    assertThat(bad.errors())
        .extracting(FieldError::index, FieldError::field)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(1, "deviceId"));
  }

  @Test
  void theNumberOfReportedErrorsIsCapped() {
    String bad = "{\"deviceId\":1,\"ts\":1}";
    String body = "[" + String.join(",", java.util.Collections.nCopies(500, bad)) + "]";
    assertThat(errorsOf(body)).hasSize(EventParser.MAX_ERRORS + 1);
  }

  @Test
  void timestampParserAcceptsMillisAndIsoWithOffsetOnly() {
    assertThat(TimestampParser.parse("1752537600000").millis()).isEqualTo(1752537600000L);
    assertThat(TimestampParser.parse("2025-07-15T00:00:00Z").millis()).isEqualTo(1752537600000L);
    assertThat(TimestampParser.parse("2025-07-15T00:00:00").error()).contains("offset");
    assertThat(TimestampParser.parse("soon").ok()).isFalse();
    assertThat(TimestampParser.parse("99999999999999999999").ok()).isFalse();
  }
}
