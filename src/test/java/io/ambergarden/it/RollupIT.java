package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.localrt.RealServers;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** Rollups against an independent computation over the raw events posted. */
@ExtendWith(RealServers.class)
@Timeout(300)
class RollupIT {
  static final long HOUR = 3_600_000L;
  static final String KEYSPACE = "amber_it_rollup";

  record Raw(long ts, double temp, double vib) {}

  static String json(String device, Raw r, String id) {
    return "{\"deviceId\":\""
        + device
        + "\",\"ts\":"
        + r.ts()
        + ",\"eventId\":\""
        + id
        + "\",\"metrics\":{\"temp\":"
        + r.temp()
        + ",\"vib\":"
        + r.vib()
        + "}}";
  }

  /** The expected rollup of one hour, computed here from the events we sent. */
  static Map<String, double[]> expected(List<Raw> raws) {
    Map<String, double[]> out = new HashMap<>();
    for (Raw r : raws) {
      for (var m : Map.of("temp", r.temp(), "vib", r.vib()).entrySet()) {
        double[] a =
            out.computeIfAbsent(
                m.getKey(), k -> new double[] {0, Double.MAX_VALUE, -Double.MAX_VALUE, 0});
        a[0]++;
        a[1] = Math.min(a[1], m.getValue());
        a[2] = Math.max(a[2], m.getValue());
        a[3] += m.getValue();
      }
    }
    return out;
  }

  static JsonObject hourOf(TestService s, String device, long hour) {
    JsonArray items =
        new JsonObject(
                s.get(
                        "/api/v1/devices/"
                            + device
                            + "/rollups?from="
                            + hour
                            + "&to="
                            + (hour + HOUR))
                    .body())
            .getJsonArray("items");
    return items.isEmpty() ? null : items.getJsonObject(0).getJsonObject("metrics");
  }

  static boolean matches(JsonObject metrics, Map<String, double[]> expected) {
    if (metrics == null || metrics.size() != expected.size()) {
      return false;
    }
    for (var e : expected.entrySet()) {
      JsonObject m = metrics.getJsonObject(e.getKey());
      double[] a = e.getValue();
      if (m == null
          || m.getLong("count") != (long) a[0]
          || m.getDouble("min") != a[1]
          || m.getDouble("max") != a[2]
          || Math.abs(m.getDouble("avg") - a[3] / a[0]) > 1e-9) {
        return false;
      }
    }
    return true;
  }

  static List<Raw> randomEvents(long hour, int n) {
    List<Raw> out = new ArrayList<>();
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    for (int i = 0; i < n; i++) {
      out.add(
          new Raw(
              hour + rnd.nextLong(HOUR),
              Math.round(rnd.nextDouble(-40, 80) * 100) / 100.0,
              Math.round(rnd.nextDouble() * 1000) / 1000.0));
    }
    return out;
  }

  static void post(TestService s, String device, List<Raw> raws, String prefix) {
    StringBuilder body = new StringBuilder("[");
    for (int i = 0; i < raws.size(); i++) {
      body.append(i == 0 ? "" : ",").append(json(device, raws.get(i), prefix + i));
    }
    assertThat(s.postEvents(body.append("]").toString()).statusCode()).isEqualTo(202);
  }

  @Test
  void rollupsMatchTheRawEventsIncludingLateAndBackfilledOnes() {
    TestService.dropKeyspace(KEYSPACE);
    // a fresh keyspace's schema takes 20-40 s to apply: not out of the 45 s before the watermark
    try (TestService schema =
        TestService.start(
            Map.of("cassandra.keyspace", KEYSPACE, "kafka.consumer.enabled", "false"))) {
      assertThat(schema.get("/health/ready").statusCode()).isEqualTo(200);
    }
    long now = System.currentTimeMillis();
    long currentHour = now / HOUR * HOUR;
    long previousHour = currentHour - HOUR;
    long oldHour = currentHour - 30 * HOUR;
    // the previous hour's watermark falls 45 s from now: events posted before it count as
    // late-within-grace
    long grace = now + 45_000 - currentHour;
    Map<String, String> cfg =
        new HashMap<>(
            Map.of(
                "cassandra.keyspace",
                KEYSPACE,
                "ingest.mode",
                "direct",
                "kafka.consumer.enabled",
                "false",
                "rollup.grace",
                grace + "ms",
                "rollup.scan-interval",
                "500ms",
                "rollup.lease-ttl",
                "5s",
                "rollup.mark-bucket",
                "1s",
                "rollup.mark-safety",
                "5s",
                "writer.request-timeout",
                "5s"));
    // late marks wait for the end of a 5 s window (1 min by default), so backfills go that path
    cfg.put("rollup.late-window", "5s");
    String device = "roll-" + UUID.randomUUID().toString().substring(0, 8);
    try (TestService s = TestService.start(cfg)) {
      // the previous hour: on-time events, then a late one, both before its watermark
      List<Raw> previous = new ArrayList<>(randomEvents(previousHour, 30));
      post(s, device, previous, "prev");
      List<Raw> late = List.of(new Raw(previousHour + HOUR - 1, 99.5, 0.5));
      post(s, device, late, "late");
      previous.addAll(late);
      assertThat(System.currentTimeMillis())
          .as("posted before the watermark")
          .isLessThan(currentHour + grace);

      // backfill of an hour closed long ago: due at the end of the late window
      List<Raw> old = randomEvents(oldHour, 40);
      post(s, device, old, "old");
      await()
          .atMost(Duration.ofSeconds(40))
          .until(() -> matches(hourOf(s, device, oldHour), expected(old)));
      if (System.currentTimeMillis() < currentHour + grace) {
        assertThat(hourOf(s, device, previousHour))
            .as("not rolled up before its watermark")
            .isNull();
      }
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> matches(hourOf(s, device, previousHour), expected(previous)));

      // a second backfill to the old hour, after its rollup exists: recomputed within the bounded
      // delay
      List<Raw> more = randomEvents(oldHour, 5);
      post(s, device, more, "more");
      List<Raw> allOld = new ArrayList<>(old);
      allOld.addAll(more);
      long t0 = System.nanoTime();
      await()
          .atMost(Duration.ofSeconds(40))
          .until(() -> matches(hourOf(s, device, oldHour), expected(allOld)));
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(40));

      // a redelivered duplicate changes nothing: rollups are exact, not additive
      post(s, device, more, "more");
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(10))
          .until(() -> matches(hourOf(s, device, oldHour), expected(allOld)));
      assertThat(s.get("/api/v1/devices/" + device + "/rollups?from=10&to=5").statusCode())
          .isEqualTo(400);
    }
  }
}
