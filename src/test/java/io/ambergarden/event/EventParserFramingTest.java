package io.ambergarden.event;

import static io.ambergarden.event.Events.CLOCK;
import static io.ambergarden.event.Events.NOW;
import static io.ambergarden.event.Events.PARSER;
import static io.ambergarden.event.Events.errors;
import static io.ambergarden.event.Events.ev;
import static io.ambergarden.event.Events.json;
import static io.ambergarden.event.Events.ndjson;
import static io.ambergarden.event.Events.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class EventParserFramingTest {

  private static String evId(String id) {
    return "{\"deviceId\":\"" + id + "\",\"ts\":" + NOW + "}";
  }

  @Nested
  class Json {
    @Test
    void aSingleObjectIsABatchOfOne() {
      EventParser.BatchResult r = json("  \n" + evId("a") + "\n ");
      assertThat(r.ok()).isTrue();
      assertThat(r.events()).extracting(Event::deviceId).containsExactly("a");
    }

    @Test
    void anArrayOfObjectsKeepsItsOrder() {
      EventParser.BatchResult r = json("[" + evId("a") + " , " + evId("b") + "," + evId("c") + "]");
      assertThat(r.errors()).isEmpty();
      assertThat(r.events()).extracting(Event::deviceId).containsExactly("a", "b", "c");
    }

    @Test
    void anEmptyArrayIsRejected() {
      assertThat(errors("[ ]")).containsExactly(new FieldError(-1, "$", "empty array"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"42", "\"x\"", "null", "true", "NaN"})
    void aTopLevelScalarIsRejected(String body) {
      assertThat(errors(body))
          .containsExactly(
              new FieldError(
                  -1, "$", "top-level value must be a JSON object or an array of objects"));
    }

    @Test
    void anArrayElementThatIsNotAnObjectIsRejectedAtItsIndex() {
      assertThat(errors("[" + evId("a") + ",7,[1,{}],\"s\",null]"))
          .extracting(FieldError::index, FieldError::field, FieldError::message)
          .containsExactly(
              tuple(1, "$", "must be a JSON object"),
              tuple(2, "$", "must be a JSON object"),
              tuple(3, "$", "must be a JSON object"),
              tuple(4, "$", "must be a JSON object"));
    }

    @Test
    void trailingContentIsRejected() {
      assertThat(errors(evId("a") + " " + evId("b")).get(0).message())
          .startsWith("unexpected content after the JSON value");
      assertThat(errors("[" + evId("a") + "] []").get(0).field()).isEqualTo("$");
      assertThat(errors(evId("a") + " x").get(0).message()).startsWith("malformed JSON");
    }

    @Test
    void aMixedBatchReportsAllErrorsWithTheirIndicesAndNoEvents() {
      EventParser.BatchResult r =
          json(
              "["
                  + evId("ok0")
                  + ",{\"deviceId\":\"x\"},"
                  + evId("ok2")
                  + ",{\"deviceId\":\"a b\",\"ts\":1.5},"
                  + evId("ok4")
                  + ",{\"ts\":"
                  + NOW
                  + ",\"code\":\"x\"}]");
      assertThat(r.ok()).isFalse();
      assertThat(r.events()).isEmpty();
      assertThat(r.errors())
          .extracting(FieldError::index, FieldError::field)
          .containsExactly(
              tuple(1, "ts"),
              tuple(3, "deviceId"),
              tuple(3, "ts"),
              tuple(5, "code"),
              tuple(5, "deviceId"));
    }

    @Test
    void exactlyTheMaximumBatchIsAccepted() {
      String body = "[" + String.join(",", Collections.nCopies(1000, ev(""))) + "]";
      assertThat(json(body).events()).hasSize(1000);
    }

    @Test
    void aBatchOverTheCapStopsEarlyWithOneError() {
      // the tail is malformed and full of bad events: it is never looked at
      String body =
          "[" + String.join(",", Collections.nCopies(1000, ev(""))) + ",{\"deviceId\":1}" + ",{{{{";
      assertThat(errors(body))
          .containsExactly(new FieldError(-1, "$", "batch too large: more than 1000 events"));
    }

    @Test
    void aBatchOverTheCapReportsOnlyTheCapEvenIfEarlierEventsWereBad() {
      // more bad events than the error cap: counting goes on past the cap
      String body =
          "[" + String.join(",", Collections.nCopies(1001, "{\"deviceId\":1,\"p\":[[{}]]}")) + "]";
      assertThat(errors(body))
          .containsExactly(new FieldError(-1, "$", "batch too large: more than 1000 events"));
      String nd = String.join("\n", Collections.nCopies(1001, "{"));
      assertThat(ndjson(nd).errors())
          .containsExactly(new FieldError(-1, "$", "batch too large: more than 1000 events"));
    }

    @Test
    void theCapFollowsTheLimits() {
      EventParser small = new EventParser(EventLimits.defaults().withMaxBatch(2), CLOCK);
      assertThat(small.parseBatch(utf8("[" + ev("") + "," + ev("") + "]"), BodyFormat.JSON).ok())
          .isTrue();
      assertThat(
              small
                  .parseBatch(
                      utf8("[" + ev("") + "," + ev("") + "," + ev("") + "]"), BodyFormat.JSON)
                  .errors())
          .containsExactly(new FieldError(-1, "$", "batch too large: more than 2 events"));
    }

    @Test
    void malformedJsonNamesTheLineAndColumn() {
      List<FieldError> e = errors("[\n" + evId("a") + ",\n{\"deviceId\": x}\n]");
      assertThat(e).hasSize(1);
      assertThat(e.get(0).index()).isEqualTo(-1);
      assertThat(e.get(0).field()).isEqualTo("$");
      assertThat(e.get(0).message())
          .startsWith("malformed JSON at line 3, column 16: Unrecognized token 'x'");
    }

    @ParameterizedTest
    @ValueSource(
        strings = {
          "{",
          "[",
          "[{}",
          "{\"deviceId\":",
          "{\"deviceId\" \"d\"}",
          "{'deviceId':'d'}",
          "{\"deviceId\":\"d\",}",
          "[1,]",
          "{\"a\":01}",
          "{\"a\":+1}",
          "{\"a\":.5}",
          "{\"a\":\"\u0001\"}",
          "{\"a\":\"\\x\"}",
          "{\"a\":tru}",
          "/* c */ {}",
          "{\"a\":1} // c"
        })
    void malformedDocumentsAreADocumentError(String body) {
      // errors of events completed before the break are kept; the document error comes last
      List<FieldError> e = errors(body);
      FieldError last = e.get(e.size() - 1);
      assertThat(last.index()).isEqualTo(-1);
      assertThat(last.field()).isEqualTo("$");
      assertThat(last.message()).startsWith("malformed JSON at line ");
    }
  }

  @Nested
  class EmptyAndEncoding {
    @ParameterizedTest
    @EnumSource(BodyFormat.class)
    void anEmptyOrBlankBodyIsRejected(BodyFormat format) {
      for (String body : List.of("", " ", "\n\n", " \t\r\n ", "\uFEFF", "\uFEFF  \n")) {
        assertThat(PARSER.parseBatch(utf8(body), format).errors())
            .as("%s", body)
            .containsExactly(new FieldError(-1, "$", "empty body"));
      }
      assertThat(PARSER.parseBatch(null, format).errors())
          .containsExactly(new FieldError(-1, "$", "empty body"));
    }

    @Test
    void aUtf8ByteOrderMarkIsSkipped() {
      assertThat(json("\uFEFF" + ev("")).ok()).isTrue();
      assertThat(ndjson("\uFEFF" + ev("") + "\n" + ev("")).events()).hasSize(2);
    }

    @Test
    void malformedUtf8IsADocumentErrorNotAnException() {
      byte[][] bad = {
        {(byte) 0xC3, '"'}, // lead byte without continuation
        {(byte) 0x80}, // lone continuation byte
        {(byte) 0xC0, (byte) 0x80}, // overlong NUL
        {(byte) 0xE0, (byte) 0x80, (byte) 0xAF}, // overlong '/'
        {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, // UTF-16 surrogate
        {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, // above U+10FFFF
        {(byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80},
        {(byte) 0xFF},
        {(byte) 0xE2, (byte) 0x82}, // truncated at the end
      };
      for (byte[] b : bad) {
        byte[] prefix = utf8("{\"deviceId\":\"d1\",\"ts\":" + NOW + ",\"status\":\"x");
        byte[] body = concat(prefix, b, utf8("\"}"));
        for (BodyFormat f : BodyFormat.values()) {
          List<FieldError> e = PARSER.parseBatch(body, f).errors();
          assertThat(e).hasSize(1);
          assertThat(e.get(0).index()).isEqualTo(-1);
          assertThat(e.get(0).field()).isEqualTo("$");
          assertThat(e.get(0).message())
              .isEqualTo(
                  "body is not valid UTF-8 (malformed byte at offset " + prefix.length + ")");
        }
        assertThat(PARSER.parseOne(body).errors().get(0).message()).contains("not valid UTF-8");
      }
    }

    @Test
    void malformedUtf8InsideAPayloadKeyOrSkippedValueIsStillCaught() {
      byte[] body =
          concat(
              utf8("{\"deviceId\":\"d1\",\"ts\":" + NOW + ",\"payload\":{\"k"),
              new byte[] {(byte) 0xC0, (byte) 0xAF},
              utf8("\":1}}"));
      assertThat(PARSER.parseBatch(body, BodyFormat.JSON).errors().get(0).message())
          .contains("UTF-8");
    }

    @Test
    void utf16AndUtf32AreRejected() {
      String doc = ev("");
      for (java.nio.charset.Charset cs :
          List.of(
              StandardCharsets.UTF_16LE,
              StandardCharsets.UTF_16BE,
              StandardCharsets.UTF_16,
              java.nio.charset.Charset.forName("UTF-32"))) {
        List<FieldError> e = PARSER.parseBatch(doc.getBytes(cs), BodyFormat.JSON).errors();
        assertThat(e).as("%s", cs).hasSize(1);
        assertThat(e.get(0).field()).isEqualTo("$");
        assertThat(e.get(0).message()).containsAnyOf("NUL byte", "not valid UTF-8");
      }
      assertThat(
              PARSER
                  .parseBatch(doc.getBytes(StandardCharsets.UTF_16LE), BodyFormat.JSON)
                  .errors()
                  .get(0)
                  .message())
          .isEqualTo(
              "body contains a NUL byte at offset 1 (UTF-16 and UTF-32 are not accepted; send UTF-8)");
    }

    @Test
    void validMultiByteTextIsAccepted() {
      Event e = Events.valid(ev("\"tags\":{\"n\":\"\u00e9\u20ac\ud83d\ude00\u4e2d\"}"));
      assertThat(e.tags().get("n")).isEqualTo("\u00e9\u20ac\ud83d\ude00\u4e2d");
    }

    @Test
    void anOffsetAndLengthSelectPartOfTheArray() {
      byte[] b = utf8("garbage" + ev("") + "garbage");
      EventParser.BatchResult r = PARSER.parseBatch(b, 7, ev("").length(), BodyFormat.JSON);
      assertThat(r.ok()).isTrue();
      assertThat(PARSER.parseBatch(b, 0, 0, BodyFormat.JSON).errors())
          .extracting(FieldError::message)
          .containsExactly("empty body");
    }
  }

  @Nested
  class Depth {
    private String nested(int levels) {
      return "[".repeat(levels) + "]".repeat(levels);
    }

    @ParameterizedTest
    @EnumSource(BodyFormat.class)
    void theEventObjectIsLevelOneWhateverTheFraming(BodyFormat format) {
      // the event is level 1 and the payload's first array level 2: 15 arrays reach level 16
      String ok = ev("\"payload\":" + nested(15));
      String tooDeep = ev("\"payload\":" + nested(16));
      String okBody = format == BodyFormat.JSON ? "[" + ok + "," + ok + "]" : ok + "\n" + ok;
      assertThat(PARSER.parseBatch(utf8(okBody), format).errors()).isEmpty();
      assertThat(PARSER.parseBatch(utf8(ok), format).errors()).isEmpty();
      String badBody =
          format == BodyFormat.JSON ? "[" + ok + "," + tooDeep + "]" : ok + "\n" + tooDeep;
      assertThat(PARSER.parseBatch(utf8(badBody), format).errors())
          .containsExactly(new FieldError(1, "payload", "JSON is nested deeper than 16 levels"));
    }

    @Test
    void deepNestingIsStoppedEarlyAndNamesWhereItHappened() {
      String attack =
          "{\"deviceId\":\"d1\",\"ts\":"
              + NOW
              + ",\"metrics\":{\"m\":"
              + "[".repeat(100_000)
              + "}}";
      assertThat(errors(attack))
          .containsExactly(
              new FieldError(0, "metrics.m", "must be a finite number"),
              new FieldError(0, "metrics", "JSON is nested deeper than 16 levels"));
      assertThat(errors("[".repeat(100_000)))
          .containsExactly(
              new FieldError(0, "$", "must be a JSON object"),
              new FieldError(0, "$", "JSON is nested deeper than 16 levels"));
      assertThat(errors("[" + "{\"a\":".repeat(50)))
          .containsExactly(
              new FieldError(0, "a", "unknown field"),
              new FieldError(0, "a", "JSON is nested deeper than 16 levels"));
      assertThat(PARSER.parseOne(utf8("{\"payload\":" + "[".repeat(1000))).errors())
          .containsExactly(new FieldError(0, "payload", "JSON is nested deeper than 16 levels"));
    }

    @Test
    void theLimitIsConfigurable() {
      EventLimits d = EventLimits.defaults();
      EventLimits shallow =
          new EventLimits(
              d.maxBatch(),
              d.maxIdLength(),
              d.maxDeviceTypeLength(),
              d.maxStatusLength(),
              d.maxMetrics(),
              d.maxTags(),
              d.maxTagKeyLength(),
              d.maxTagValueLength(),
              d.maxMetricNameLength(),
              d.maxPayloadBytes(),
              2,
              d.retentionMillis(),
              d.futureSkewMillis());
      EventParser p = new EventParser(shallow, CLOCK);
      assertThat(p.parseBatch(utf8(ev("\"metrics\":{\"a\":1}")), BodyFormat.JSON).ok()).isTrue();
      assertThat(p.parseBatch(utf8("[" + ev("\"payload\":[]") + "]"), BodyFormat.JSON).ok())
          .isTrue();
      assertThat(p.parseBatch(utf8(ev("\"payload\":[[]]")), BodyFormat.JSON).errors())
          .containsExactly(new FieldError(0, "payload", "JSON is nested deeper than 2 levels"));
    }
  }

  @Nested
  class Ndjson {
    @Test
    void skipsBlankLinesAndAcceptsCrLf() {
      EventParser.BatchResult r =
          ndjson("\n" + evId("a") + "\r\n\r\n  \t \n" + evId("b") + "\n" + evId("c"));
      assertThat(r.errors()).isEmpty();
      assertThat(r.events()).extracting(Event::deviceId).containsExactly("a", "b", "c");
    }

    @Test
    void theIndexIsThePhysicalLineIndex() {
      EventParser.BatchResult r =
          ndjson(
              evId("a")
                  + "\n\n{\"deviceId\":1,\"ts\":"
                  + NOW
                  + "}\n"
                  + evId("c")
                  + "\n{\"ts\":1.5}\n");
      assertThat(r.events()).isEmpty();
      assertThat(r.errors())
          .extracting(FieldError::index, FieldError::field)
          .containsExactly(tuple(2, "deviceId"), tuple(4, "ts"), tuple(4, "deviceId"));
    }

    @Test
    void aMalformedLineIsReportedWithItsLineNumberAndParsingGoesOn() {
      EventParser.BatchResult r =
          ndjson(evId("a") + "\n{\"deviceId\":\n\n" + "{\"deviceId\":2,\"ts\":" + NOW + "}");
      assertThat(r.errors()).hasSize(2);
      assertThat(r.errors().get(0).index()).isEqualTo(1);
      assertThat(r.errors().get(0).field()).isEqualTo("$");
      assertThat(r.errors().get(0).message()).startsWith("malformed JSON at line 2, column ");
      assertThat(r.errors().get(1)).isEqualTo(new FieldError(3, "deviceId", "must be a string"));
    }

    @Test
    void theColumnIsCountedWithinTheLine() {
      FieldError e = ndjson(evId("a") + "\n  {\"deviceId\": x}").errors().get(0);
      // Jackson reports the position after the bad token, counted within the line
      assertThat(e.message()).startsWith("malformed JSON at line 2, column 18:");
    }

    @Test
    void eachLineMustBeExactlyOneObject() {
      assertThat(ndjson(evId("a") + " " + evId("b")).errors())
          .extracting(FieldError::index, FieldError::message)
          .containsExactly(
              tuple(0, "unexpected content after the JSON value at line 1, column 37"));
      assertThat(ndjson("[" + evId("a") + "]\n42").errors())
          .containsExactly(
              new FieldError(0, "$", "line 1 must be a JSON object"),
              new FieldError(1, "$", "line 2 must be a JSON object"));
    }

    @Test
    void anObjectMayNotSpanLines() {
      assertThat(ndjson("{\"deviceId\":\"a\",\n\"ts\":" + NOW + "}").errors())
          .extracting(FieldError::index)
          .containsExactly(0, 1);
    }

    @Test
    void aBatchOverTheCapStopsEarly() {
      String body = String.join("\n", Collections.nCopies(1000, ev(""))) + "\n\n\n";
      assertThat(ndjson(body).events()).hasSize(1000);
      assertThat(ndjson(body + ev("") + "\n{broken").errors())
          .containsExactly(new FieldError(-1, "$", "batch too large: more than 1000 events"));
    }
  }

  @Nested
  class ErrorCap {
    @Test
    void atMostOneHundredErrorsAreReportedThenANote() {
      String body =
          "[" + String.join(",", Collections.nCopies(300, "{\"deviceId\":1,\"ts\":1}")) + "]";
      List<FieldError> e = errors(body);
      assertThat(e).hasSize(101);
      assertThat(e.get(99).index()).isEqualTo(49);
      assertThat(e.get(100))
          .isEqualTo(new FieldError(-1, "$", "too many errors: only the first 100 are reported"));
    }

    @Test
    void exactlyOneHundredErrorsHaveNoNote() {
      String body =
          "[" + String.join(",", Collections.nCopies(50, "{\"deviceId\":1,\"ts\":1}")) + "]";
      assertThat(errors(body)).hasSize(100).allSatisfy(e -> assertThat(e.index()).isBetween(0, 49));
    }

    @Test
    void theCapAppliesToNdjsonToo() {
      String body = String.join("\n", Collections.nCopies(300, "{"));
      assertThat(ndjson(body).errors()).hasSize(101);
    }
  }

  @Nested
  class SingleRecord {
    @Test
    void parsesOneObject() {
      EventParser.SingleResult r = PARSER.parseOne(utf8(ev("\"code\":200")));
      assertThat(r.ok()).isTrue();
      assertThat(r.errors()).isEmpty();
      assertThat(r.event().code()).isEqualTo(200);
    }

    @Test
    void reportsFieldErrorsAtIndexZero() {
      EventParser.SingleResult r = PARSER.parseOne(utf8("{\"deviceId\":\"d1\",\"ts\":1.5}"));
      assertThat(r.ok()).isFalse();
      assertThat(r.event()).isNull();
      assertThat(r.errors())
          .containsExactly(new FieldError(0, "ts", "must be an integer (epoch milliseconds)"));
    }

    @Test
    void rejectsArraysScalarsEmptyAndNullValues() {
      assertThat(PARSER.parseOne(utf8("[" + ev("") + "]")).errors())
          .containsExactly(new FieldError(-1, "$", "record value must be a JSON object"));
      assertThat(PARSER.parseOne(utf8("7")).errors())
          .extracting(FieldError::field)
          .containsExactly("$");
      assertThat(PARSER.parseOne(new byte[0]).errors())
          .containsExactly(new FieldError(-1, "$", "empty record value"));
      assertThat(PARSER.parseOne(null).errors())
          .containsExactly(new FieldError(-1, "$", "empty record value"));
      assertThat(PARSER.parseOne(utf8("  \n")).errors())
          .containsExactly(new FieldError(-1, "$", "empty record value"));
      assertThat(PARSER.parseOne(utf8(ev("") + ev(""))).errors().get(0).message())
          .startsWith("unexpected content");
      assertThat(PARSER.parseOne(new byte[] {(byte) 0xFF}).errors().get(0).message())
          .startsWith("record value is not valid UTF-8");
    }
  }

  private static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int i = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, i, p.length);
      i += p.length;
    }
    return out;
  }
}
