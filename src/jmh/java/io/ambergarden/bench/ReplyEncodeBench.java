package io.ambergarden.bench;

import io.ambergarden.event.Event;
import io.ambergarden.event.SampleEvents;
import io.ambergarden.web.read.EventApiJson;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The CPU of rendering one page of events as the read API's reply, side by side in one run: the
 * streamed writer the service uses ({@link EventApiJson#page}) against the JSON tree it used before
 * (a {@code JsonObject} per event, the payload parsed again, encoded to a String, then to bytes).
 * Run with {@code mvn -Pjmh} (README "Performance").
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ReplyEncodeBench {

  /** Events per page: the default and the largest query.limit. */
  @Param({"100", "1000"})
  public int limit;

  /** Whether the events carry a payload (a small JSON object), as some device types do. */
  @Param({"false", "true"})
  public boolean payload;

  private List<Event> page;
  private static final String CURSOR = "v1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

  @Setup
  public void events() {
    page =
        SampleEvents.page(
            "charger-000042",
            limit,
            payload
                ? "{\"fw\":\"4.2.1\",\"cells\":[3.31,3.29,3.3],\"door\":{\"open\":false}}"
                : null);
  }

  @Benchmark
  public Buffer streamed() {
    return EventApiJson.page(page, CURSOR);
  }

  @Benchmark
  public Buffer tree() {
    JsonArray items = new JsonArray();
    for (Event e : page) {
      JsonObject o =
          new JsonObject()
              .put("deviceId", e.deviceId())
              .put("ts", e.ts())
              .put("eventId", e.eventId())
              .put("deviceType", e.deviceType())
              .put("status", e.status())
              .put("code", e.code())
              .put("metrics", new JsonObject(new LinkedHashMap<String, Object>(e.metrics())));
      if (e.payload() != null) {
        o.put("payload", Json.decodeValue(e.payload()));
      }
      items.add(o);
    }
    return Buffer.buffer(new JsonObject().put("items", items).put("next", CURSOR).encode());
  }
}
