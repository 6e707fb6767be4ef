package io.ambergarden.event;

import static io.ambergarden.event.Events.NOW;
import static io.ambergarden.event.Events.PARSER;
import static io.ambergarden.event.Events.ev;
import static io.ambergarden.event.Events.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventJsonTest {

  private static Event roundTrip(Event e) {
    EventParser.SingleResult back = PARSER.parseOne(EventJson.toJsonBytes(e));
    assertThat(back.errors()).as("re-parsing %s", EventJson.toJson(e)).isEmpty();
    return back.event();
  }

  @Test
  void aFullEventIsWrittenCompactlyInTheDocumentedOrder() {
    Event e = SampleEvents.full("M-10086", NOW);
    assertThat(EventJson.toJson(e))
        .isEqualTo(
            "{\"deviceId\":\"M-10086\",\"ts\":"
                + NOW
                + ",\"eventId\":\"e-1\","
                + "\"deviceType\":\"charger\",\"status\":\"normal\",\"code\":200,"
                + "\"metrics\":{\"temperature\":36.5,\"count\":3.0},\"tags\":{\"site\":\"plant-3\"},"
                + "\"payload\":{\"a\":[1,2,{\"b\":null}]}}");
    assertThat(roundTrip(e)).isEqualTo(e);
  }

  @Test
  void aMinimalEventOmitsAbsentFieldsAndAnEmptyEventId() {
    Event e = new Event("d1", NOW, "");
    assertThat(EventJson.toJson(e)).isEqualTo("{\"deviceId\":\"d1\",\"ts\":" + NOW + "}");
    assertThat(roundTrip(e)).isEqualTo(e);
  }

  @Test
  void parsedEventsRoundTrip() {
    String[] docs = {
      ev(
          "\"status\":\"fault\",\"code\":503,\"metrics\":{\"v\":-1.25e-3,\"big\":1e300,\"tiny\":4.9e-324},\"payload\":\"x\""),
      ev(
          "\"tags\":{\"note\":\"caf\u00e9 \\\"q\\\" \\\\ \\u0000x\\u2028 \\ud83d\\ude00\"}"
              .replace("\\u0000x", "x")),
      ev("\"payload\":{\"s\":\"\\ud83d\\ude00 \\u00e9 \\n\\t\\\"\",\"n\":[1e400,-0,0.1]}"),
      ev("\"payload\":{\"lone\":\"\\ud800\"}"),
      ev("\"payload\":[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]"),
      ev("\"eventId\":\"k:1\",\"deviceType\":\"t.1\",\"temperature\":1,\"metrics\":{\"x\":2}"),
      "{\"deviceId\":\"d1\",\"ts\":\"2026-07-14T23:59:59.999+02:00\"}",
    };
    for (String doc : docs) {
      Event e = valid(doc);
      assertThat(roundTrip(e)).as(doc).isEqualTo(e);
      // and writing again gives the same bytes
      assertThat(EventJson.toJson(roundTrip(e))).isEqualTo(EventJson.toJson(e));
    }
  }

  @Test
  void thePayloadIsEmbeddedAsJsonNotAsAString() {
    Event e = valid(ev("\"payload\":{\"k\":\"v\"}"));
    assertThat(EventJson.toJson(e)).endsWith(",\"payload\":{\"k\":\"v\"}}");
    Event s = valid(ev("\"payload\":\"{\\\"k\\\":1}\""));
    assertThat(s.payload()).isEqualTo("\"{\\\"k\\\":1}\"");
    assertThat(EventJson.toJson(s)).endsWith(",\"payload\":\"{\\\"k\\\":1}\"}");
  }

  @Test
  void nonAsciiTextIsWrittenAsUtf8() {
    Event e = valid(ev("\"tags\":{\"n\":\"\\ud83d\\ude00\u00e9\"}"));
    byte[] bytes = EventJson.toJsonBytes(e);
    assertThat(new String(bytes, StandardCharsets.UTF_8)).contains("\"n\":\"\ud83d\ude00\u00e9\"");
    assertThat(EventJson.toJson(e)).isEqualTo(new String(bytes, StandardCharsets.UTF_8));
  }

  @Test
  void theEventRecordNormalisesItsCollections() {
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("b", 2.0);
    m.put("a", 1.0);
    Event e = new Event("d1", 1L, null, null, null, null, m, null, null);
    m.put("c", 3.0);
    assertThat(e.eventId()).isEmpty();
    assertThat(e.tags()).isEmpty();
    assertThat(e.metrics().keySet()).containsExactly("b", "a");
    assertThatThrownBy(() -> e.metrics().put("x", 1.0))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> valid(ev("\"tags\":{\"a\":\"b\"}")).tags().put("x", "y"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> new Event(null, 1L, "")).isInstanceOf(NullPointerException.class);
  }
}
