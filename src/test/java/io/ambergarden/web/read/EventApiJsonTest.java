package io.ambergarden.web.read;

import static io.ambergarden.event.Events.NOW;
import static io.ambergarden.event.Events.ev;
import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.event.Event;
import io.ambergarden.event.Events;
import io.ambergarden.event.SampleEvents;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class EventApiJsonTest {

  @Test
  void aFullEventIsWrittenCompactlyWithItsPayloadAsJson() {
    Event e = SampleEvents.full("M-10086", NOW);
    assertThat(EventApiJson.of(e).toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"deviceId\":\"M-10086\",\"ts\":"
                + NOW
                + ",\"eventId\":\"e-1\",\"deviceType\":\"charger\",\"status\":\"normal\","
                + "\"code\":200,\"metrics\":{\"temperature\":36.5,\"count\":3.0},"
                + "\"tags\":{\"site\":\"plant-3\"},\"payload\":{\"a\":[1,2,{\"b\":null}]}}");
  }

  @Test
  void anEventWithoutIdShowsAnEmptyOneAndOmitsUnsetFields() {
    assertThat(EventApiJson.of(new Event("d1", NOW, "")).toString(StandardCharsets.UTF_8))
        .isEqualTo("{\"deviceId\":\"d1\",\"ts\":" + NOW + ",\"eventId\":\"\"}");
  }

  @Test
  void ndjsonLinesAreThePageItemsOneALineEachEndingWithANewline() {
    Event full = SampleEvents.full("M-10086", NOW);
    Event bare = new Event("d1", NOW + 1, "");
    String text = EventApiJson.lines(List.of(full, bare)).toString(StandardCharsets.UTF_8);
    assertThat(text)
        .isEqualTo(
            EventApiJson.of(full).toString(StandardCharsets.UTF_8)
                + "\n"
                + EventApiJson.of(bare).toString(StandardCharsets.UTF_8)
                + "\n");
    assertThat(EventApiJson.lines(List.of()).length()).isZero();
  }

  @Test
  void aPageHoldsItsItemsInOrderAndItsCursor() {
    List<Event> items = List.of(new Event("d1", NOW, "a"), new Event("d1", NOW - 1, ""));
    JsonObject page = new JsonObject(EventApiJson.page(items, "c1"));
    assertThat(page.fieldNames()).containsExactly("items", "next");
    assertThat(page.getString("next")).isEqualTo("c1");
    assertThat(page.getJsonArray("items").stream().map(o -> ((JsonObject) o).getLong("ts")))
        .containsExactly(NOW, NOW - 1);

    JsonObject last = new JsonObject(EventApiJson.page(List.of(), null));
    assertThat(last.getJsonArray("items")).isEmpty();
    assertThat(last.containsKey("next")).isTrue();
    assertThat(last.getValue("next")).isNull();
  }

  /**
   * Parsed events of every shape, as the ingest paths store them (payload compacted by the parser):
   * every field as the event holds it, the payload the same JSON value, and a page of them valid
   * JSON holding each in turn.
   */
  @Test
  void everyParsedEventReadsBackAsItsOwnFields() {
    List<String> docs = new ArrayList<>();
    docs.add(
        ev(
            "\"eventId\":\"k:1\",\"deviceType\":\"t.1\",\"status\":\"fault\",\"code\":503,"
                + "\"metrics\":{\"v\":-1.25e-3,\"big\":1e300,\"tiny\":4.9e-324},\"payload\":\"x\""));
    docs.add(ev("\"tags\":{\"note\":\"caf\u00e9 \\\"q\\\" \\\\ \\u2028 \\ud83d\\ude00\"}"));
    docs.add(ev("\"payload\":{\"s\":\"\\ud83d\\ude00 \\u00e9 \\n\\t\\\"\",\"n\":[1e400,-0,0.1]}"));
    docs.add(ev("\"payload\":[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]"));
    docs.add(ev("\"payload\" : { \"spaced\" : [ 1 , true , null ] }"));
    Random random = new Random(7);
    for (int i = 0; i < 200; i++) {
      docs.add(randomEvent(random));
    }
    List<Event> events = new ArrayList<>();
    for (String doc : docs) {
      Event e = Events.valid(doc);
      events.add(e);
      assertShows(new JsonObject(EventApiJson.of(e)), e, doc);
    }
    JsonArray items = new JsonObject(EventApiJson.page(events, "next")).getJsonArray("items");
    assertThat(items).hasSize(events.size());
    for (int i = 0; i < events.size(); i++) {
      assertShows(items.getJsonObject(i), events.get(i), docs.get(i));
    }
  }

  private static void assertShows(JsonObject o, Event e, String doc) {
    assertThat(o.getString("deviceId")).as(doc).isEqualTo(e.deviceId());
    assertThat(o.getLong("ts")).as(doc).isEqualTo(e.ts());
    assertThat(o.getString("eventId")).as(doc).isEqualTo(e.eventId());
    assertThat(o.getString("deviceType")).as(doc).isEqualTo(e.deviceType());
    assertThat(o.getString("status")).as(doc).isEqualTo(e.status());
    assertThat(o.getInteger("code")).as(doc).isEqualTo(e.code());
    assertThat(o.containsKey("metrics")).as(doc).isEqualTo(!e.metrics().isEmpty());
    e.metrics().forEach((k, v) -> assertThat(o.getJsonObject("metrics").getDouble(k)).isEqualTo(v));
    assertThat(o.containsKey("tags")).as(doc).isEqualTo(!e.tags().isEmpty());
    e.tags().forEach((k, v) -> assertThat(o.getJsonObject("tags").getString(k)).isEqualTo(v));
    assertThat(o.containsKey("payload")).as(doc).isEqualTo(e.payload() != null);
    if (e.payload() != null) {
      assertThat(o.getValue("payload")).as(doc).isEqualTo(Json.decodeValue(e.payload()));
    }
  }

  private static String randomEvent(Random r) {
    JsonObject o = new JsonObject().put("deviceId", "dev-" + r.nextInt(1000));
    o.put("ts", NOW - r.nextInt(3_600_000));
    if (r.nextBoolean()) {
      o.put("eventId", "e-" + r.nextLong());
    }
    if (r.nextBoolean()) {
      o.put("deviceType", "type" + r.nextInt(5));
    }
    if (r.nextBoolean()) {
      o.put("status", r.nextBoolean() ? "normal" : "fault");
    }
    if (r.nextBoolean()) {
      o.put("code", r.nextInt(600));
    }
    JsonObject metrics = new JsonObject();
    for (int i = r.nextInt(4); i > 0; i--) {
      metrics.put("m" + i, r.nextBoolean() ? r.nextGaussian() * 1e6 : (double) r.nextInt(100));
    }
    if (!metrics.isEmpty()) {
      o.put("metrics", metrics);
    }
    JsonObject tags = new JsonObject();
    for (int i = r.nextInt(3); i > 0; i--) {
      tags.put("t" + i, "v" + text(r, false));
    }
    if (!tags.isEmpty()) {
      o.put("tags", tags);
    }
    if (r.nextBoolean()) {
      o.put("payload", payload(r, 3));
    }
    return o.encode();
  }

  private static Object payload(Random r, int depth) {
    switch (depth == 0 ? r.nextInt(4) : r.nextInt(6)) {
      case 0:
        return text(r, true);
      case 1:
        return r.nextGaussian() * Math.pow(10, r.nextInt(20) - 10);
      case 2:
        return r.nextBoolean() ? r.nextLong() : null;
      case 3:
        return r.nextBoolean();
      case 4:
        {
          JsonArray a = new JsonArray();
          for (int i = r.nextInt(4); i > 0; i--) {
            a.add(payload(r, depth - 1));
          }
          return a;
        }
      default:
        {
          JsonObject o = new JsonObject();
          for (int i = r.nextInt(4); i > 0; i--) {
            o.put("k" + i, payload(r, depth - 1));
          }
          return o;
        }
    }
  }

  /** Text with quotes, backslashes, non-ASCII and emoji; control characters only where allowed. */
  private static String text(Random r, boolean controls) {
    StringBuilder sb = new StringBuilder();
    String pool = "aZ09 \"\\/\u00e9\u4e2d\ud83d\ude00\u2028" + (controls ? "\n\t" : "");
    for (int i = r.nextInt(8); i > 0; i--) {
      int at = r.nextInt(pool.length());
      if (Character.isSurrogate(pool.charAt(at))) {
        sb.append("\ud83d\ude00");
      } else {
        sb.append(pool.charAt(at));
      }
    }
    return sb.toString();
  }
}
