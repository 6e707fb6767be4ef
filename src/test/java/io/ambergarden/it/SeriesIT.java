package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.datastax.oss.driver.api.core.CqlSession;
import io.ambergarden.localrt.RealServers;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * GET /api/v1/devices/{id}/series against a computation from the events sent: three hours of a cold
 * device and of a hot one (salted slices), every step from a minute to a day, with the closed hours
 * read from their rollups once those are up to date and the current hour from detail; a late event
 * in a closed hour counts at once (its hour is reopened, so it is read from detail) and still after
 * the recompute; past each bound the answer is a 400 naming it. Every answer is checked against the
 * OpenAPI document's schema.
 */
@ExtendWith(RealServers.class)
@Timeout(400)
class SeriesIT {
  static final String KEYSPACE = "amber_it_series";
  static final long MINUTE = 60_000L;
  static final long HOUR = 60 * MINUTE;
  static final int MAX_SCANNED = 10_000;
  static final int HOT_PER_HOUR = 600;

  /** Every step from a minute to a day, and the ISO-8601 and sub-minute forms. */
  static final List<String> STEPS =
      List.of(
          "1m", "2m", "3m", "4m", "5m", "6m", "10m", "12m", "15m", "20m", "30m", "1h", "2h", "3h",
          "4h", "6h", "8h", "12h", "1d", "30s", "PT5M", "PT1H", "P1D");

  /** An event sent: its time and its temp (null: the event carries another metric only). */
  record Sent(long ts, Double temp) {}

  static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  static final String COLD = "series-cold-" + RUN;
  static final String HOT = "series-hot-" + RUN;
  static final String LATE = "series-late-" + RUN;
  static final Map<String, List<Sent>> SENT = new TreeMap<>();
  static TestService s;
  static ApiSchemas schemas;
  static long firstHour;
  static long currentHour;

  @BeforeAll
  static void sendThreeHoursAndWaitForTheClosedOnesToBeRolledUp() {
    schemas = ApiSchemas.load();
    TestService.dropKeyspace(KEYSPACE);
    Map<String, String> cfg = new java.util.HashMap<>(TestService.fastRollups());
    cfg.putAll(
        Map.of(
            "cassandra.keyspace", KEYSPACE,
            "ingest.mode", "direct",
            "kafka.consumer.enabled", "false",
            // hours close 1 s after they end: the two earlier hours are closed, their events late
            "rollup.grace", "1s",
            "hot.partition-rows", "200",
            "hot.max-salts", "8",
            "query.series-max-scanned", Integer.toString(MAX_SCANNED)));
    s = TestService.start(cfg);
    long now = System.currentTimeMillis();
    currentHour = now - Math.floorMod(now, HOUR);
    firstHour = currentHour - 2 * HOUR;
    for (long h = firstHour; h <= currentHour; h += HOUR) {
      long end = Math.min(h + HOUR, now);
      send(COLD, randomEvents(h, end, 60));
      send(LATE, randomEvents(h, end, 30));
      // the hot device in time order, in batches, so its hours are split into salted slices
      List<Sent> hot = new ArrayList<>();
      for (int i = 0; i < HOT_PER_HOUR; i++) {
        hot.add(new Sent(h + (end - h) * i / HOT_PER_HOUR, value(i)));
      }
      for (int i = 0; i < hot.size(); i += 100) {
        send(HOT, hot.subList(i, i + 100));
      }
    }
    for (String device : List.of(COLD, HOT, LATE)) {
      awaitRolledUp(device);
    }
    try (CqlSession cql = TestService.cql()) {
      long slices =
          cql.execute(
                  "SELECT COUNT(*) FROM " + KEYSPACE + ".device_slices WHERE device_id = ?", HOT)
              .one()
              .getLong(0);
      assertThat(slices).as("salted slices of the hot device").isPositive();
    }
  }

  @AfterAll
  static void stop() {
    if (s != null) {
      s.close();
    }
  }

  static double value(int i) {
    return Math.round(ThreadLocalRandom.current().nextDouble(-40, 80) * 100) / 100.0 + i % 3;
  }

  /** {@code n} events in [from, to), one in seven without the metric. */
  static List<Sent> randomEvents(long from, long to, int n) {
    List<Sent> out = new ArrayList<>();
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    for (int i = 0; i < n; i++) {
      out.add(new Sent(from + rnd.nextLong(to - from), i % 7 == 3 ? null : value(i)));
    }
    return out;
  }

  static void send(String device, List<Sent> events) {
    List<Sent> all = SENT.computeIfAbsent(device, d -> new ArrayList<>());
    StringBuilder body = new StringBuilder("[");
    for (Sent e : events) {
      body.append(body.length() > 1 ? "," : "")
          .append("{\"deviceId\":\"")
          .append(device)
          .append("\",\"ts\":")
          .append(e.ts())
          .append(",\"eventId\":\"e")
          .append(all.size())
          .append("\",\"metrics\":{")
          .append(e.temp() == null ? "\"other\":1" : "\"temp\":" + e.temp())
          .append("}}");
      all.add(e);
    }
    HttpResponse<String> r = s.postEvents(body.append(']').toString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
  }

  /** Waits until the device's closed hours are reconciled (rollups recomputed, none reopened). */
  static void awaitRolledUp(String device) {
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              JsonObject c =
                  new JsonObject(s.get("/api/v1/devices/" + device + "/counters").body());
              Long exact = c.getLong("exactThrough");
              return exact != null && exact >= currentHour;
            });
  }

  static HttpResponse<String> series(
      String device, String metric, long from, long to, String step) {
    String uri =
        "/api/v1/devices/"
            + device
            + "/series?metric="
            + metric
            + "&from="
            + from
            + "&to="
            + to
            + "&step="
            + step;
    HttpResponse<String> r = s.get(uri);
    schemas.assertDocumented(uri, r);
    return r;
  }

  /** count, min, max, sum per bucket of the events sent in [from, to) carrying temp. */
  static Map<Long, double[]> expected(List<Sent> sent, long from, long to, long step) {
    Map<Long, double[]> out = new TreeMap<>();
    for (Sent e : sent) {
      if (e.temp() == null || e.ts() < from || e.ts() >= to) {
        continue;
      }
      double[] a =
          out.computeIfAbsent(
              Math.floorDiv(e.ts(), step) * step,
              t -> new double[] {0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0});
      a[0]++;
      a[1] = Math.min(a[1], e.temp());
      a[2] = Math.max(a[2], e.temp());
      a[3] += e.temp();
    }
    return out;
  }

  static long stepMillis(String step) {
    return io.ambergarden.web.read.SeriesStep.parse(step).millis();
  }

  /** The device's series over [from, to) at {@code step} is what the events sent make of it. */
  static void assertSeriesOfSent(String device, long from, long to, String step) {
    long millis = stepMillis(step);
    HttpResponse<String> r = series(device, "temp", from, to, step);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonObject body = new JsonObject(r.body());
    String what = device + " at " + step + " from " + from;
    assertThat(body.getString("deviceId")).isEqualTo(device);
    assertThat(body.getString("metric")).isEqualTo("temp");
    assertThat(stepMillis(body.getString("step"))).isEqualTo(millis);
    assertThat(body.getLong("from")).isEqualTo(from);
    assertThat(body.getLong("to")).isEqualTo(to);
    Map<Long, double[]> want = expected(SENT.get(device), from, to, millis);
    JsonArray points = body.getJsonArray("points");
    assertThat(points.stream().map(p -> ((JsonObject) p).getLong("t")).toList())
        .as("%s: the buckets with events, oldest first", what)
        .containsExactlyElementsOf(want.keySet());
    for (int i = 0; i < points.size(); i++) {
      JsonObject p = points.getJsonObject(i);
      double[] a = want.get(p.getLong("t"));
      String at = what + ", bucket " + p.getLong("t");
      assertThat(p.getLong("count")).as("%s count", at).isEqualTo((long) a[0]);
      assertThat(p.getDouble("min")).as("%s min", at).isEqualTo(a[1]);
      assertThat(p.getDouble("max")).as("%s max", at).isEqualTo(a[2]);
      assertThat(p.getDouble("avg"))
          .as("%s avg", at)
          .isCloseTo(a[3] / a[0], org.assertj.core.data.Offset.offset(1e-9));
    }
  }

  @Test
  void everyStepFromAMinuteToADayMatchesTheEventsSentForAColdAndAHotDevice() {
    long to = System.currentTimeMillis() + MINUTE;
    // aligned on the hour, and not: the partial first hour is read from detail
    for (long from : List.of(firstHour, firstHour + 17 * MINUTE + 123)) {
      for (String device : List.of(COLD, HOT)) {
        for (String step : STEPS) {
          assertSeriesOfSent(device, from, to, step);
        }
      }
    }
  }

  @Test
  void aLateEventInAClosedHourCountsAtOnceAndStillAfterItsHourIsRecomputed() {
    long to = System.currentTimeMillis() + MINUTE;
    // the largest value yet, in the first (closed, rolled-up) hour
    send(LATE, List.of(new Sent(firstHour + 5 * MINUTE, 500.25)));
    for (String step : List.of("1h", "3h", "1d", "5m")) {
      assertSeriesOfSent(LATE, firstHour, to, step);
    }
    awaitRolledUp(LATE);
    for (String step : List.of("1h", "3h", "1d", "5m")) {
      assertSeriesOfSent(LATE, firstHour, to, step);
    }
  }

  /**
   * The figure: one device's day at 1m (1,440 points from 8,640 events, one every 10 s),
   * read from detail; then the same day at 1h once its closed hours are rolled up.
   */
  @Test
  void aDayAtOneMinuteOfOneDeviceIsExactAndMeasured() {
    String device = "series-day-" + RUN;
    long now = System.currentTimeMillis();
    long from = now - now % MINUTE - 24 * HOUR;
    long to = from + 24 * HOUR;
    List<Sent> day = new ArrayList<>();
    for (long t = from; t < to; t += 10_000) {
      day.add(new Sent(t, value((int) (t / 10_000))));
    }
    for (int i = 0; i < day.size(); i += 1000) {
      send(device, day.subList(i, Math.min(day.size(), i + 1000)));
    }
    assertSeriesOfSent(device, from, to, "1m");
    double[] minute = timed(device, from, to, "1m", 20);
    awaitRolledUp(device);
    assertSeriesOfSent(device, from, to, "1h");
    double[] hourly = timed(device, from, to, "1h", 20);
    // an up-to-date hour is read from its rollup row, not from detail: overwrite one (with a later
    // write time than any recompute) and the 1h answer shows it while the 1m answer does not
    long hour = from - Math.floorMod(from, HOUR) + 2 * HOUR;
    try (CqlSession cql = TestService.cql()) {
      cql.execute(
          "UPDATE "
              + KEYSPACE
              + ".rollups_by_device USING TIMESTAMP ? SET count = 7, min = -1000, max = 1000,"
              + " sum = 70 WHERE device_id = ? AND day = ? AND hour = ? AND metric = 'temp'",
          (System.currentTimeMillis() + HOUR) * 1000,
          device,
          java.time.LocalDate.ofInstant(
              java.time.Instant.ofEpochMilli(hour), java.time.ZoneOffset.UTC),
          java.time.Instant.ofEpochMilli(hour));
    }
    JsonObject fromRollup =
        new JsonObject(series(device, "temp", from, to, "1h").body())
            .getJsonArray("points").stream()
                .map(JsonObject.class::cast)
                .filter(p -> p.getLong("t") == hour)
                .findFirst()
                .orElseThrow();
    assertThat(fromRollup.getLong("count")).isEqualTo(7);
    assertThat(fromRollup.getDouble("min")).isEqualTo(-1000.0);
    assertThat(fromRollup.getDouble("avg")).isEqualTo(10.0);
    assertSeriesOfSent(device, from, to, "1m");
    ItLog.printf(
        "SeriesIT: one device's day, %,d events: 1m (1,440 points, detail) median %.1f ms, max"
            + " %.1f ms; 1h (24 points, rollups but the current hour) median %.1f ms, max %.1f"
            + " ms (20 requests each, after a checked one)%n",
        day.size(), minute[0], minute[1], hourly[0], hourly[1]);
  }

  /** Median and max milliseconds of {@code n} requests. */
  static double[] timed(String device, long from, long to, String step, int n) {
    String uri =
        "/api/v1/devices/"
            + device
            + "/series?metric=temp&from="
            + from
            + "&to="
            + to
            + "&step="
            + step;
    double[] ms = new double[n];
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      HttpResponse<String> r = s.get(uri);
      ms[i] = (System.nanoTime() - t0) / 1e6;
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }
    java.util.Arrays.sort(ms);
    return new double[] {ms[n / 2], ms[n - 1]};
  }

  @Test
  void anUnknownDeviceOrMetricHasNoPoints() {
    long to = System.currentTimeMillis() + MINUTE;
    for (String step : List.of("1m", "1h")) {
      HttpResponse<String> unknownDevice = series("nobody-" + RUN, "temp", firstHour, to, step);
      assertThat(unknownDevice.statusCode()).isEqualTo(200);
      assertThat(new JsonObject(unknownDevice.body()).getJsonArray("points")).isEmpty();
      HttpResponse<String> unknownMetric = series(COLD, "nothing", firstHour, to, step);
      assertThat(unknownMetric.statusCode()).isEqualTo(200);
      assertThat(new JsonObject(unknownMetric.body()).getJsonArray("points")).isEmpty();
    }
  }

  @Test
  void pastEachBoundOrWithABadParameterTheAnswerIsA400NamingIt() {
    long now = System.currentTimeMillis();
    // points: 30 days at 1m is 43,200 buckets, over the 10,080 of query.series-max-points
    HttpResponse<String> points = series(COLD, "temp", now - 30 * 24 * HOUR, now, "1m");
    assertThat(points.statusCode()).isEqualTo(400);
    assertThat(new JsonObject(points.body()).getString("detail"))
        .contains("query.series-max-points")
        .contains("10080");
    // events scanned: more stored events in the range than query.series-max-scanned
    String bulk = "series-bulk-" + RUN;
    List<Sent> many = new ArrayList<>();
    long start = currentHour;
    for (int i = 0; i < MAX_SCANNED + 100; i++) {
      many.add(new Sent(start + (now - start) * i / (MAX_SCANNED + 100), 1.0));
    }
    for (int i = 0; i < many.size(); i += 1000) {
      send(bulk, many.subList(i, Math.min(many.size(), i + 1000)));
    }
    for (String step : List.of("1m", "1h")) {
      HttpResponse<String> scanned = series(bulk, "temp", currentHour, now + MINUTE, step);
      assertThat(scanned.statusCode()).as(scanned.body()).isEqualTo(400);
      assertThat(new JsonObject(scanned.body()).getString("detail"))
          .contains("query.series-max-scanned")
          .contains(Integer.toString(MAX_SCANNED));
    }
    assertSeriesOfSent(COLD, firstHour, now, "1h");

    String base = "/api/v1/devices/" + COLD + "/series";
    Map<String, String> bad =
        Map.of(
            base + "?step=1m", "metric",
            base + "?metric=temp", "step",
            base + "?metric=temp&step=7m", "step",
            base + "?metric=temp&step=90m", "step",
            base + "?metric=temp&step=fortnight", "step",
            base + "?metric=temp&step=1m&from=" + now + "&to=" + now, "from",
            base + "?metric=temp&step=1h&from=" + now + "&to=" + (now - HOUR), "from",
            base + "?metric=temp&step=1h&from=yesterday", "from",
            base + "?metric=a%20b&step=1h", "metric");
    bad.forEach(
        (uri, field) -> {
          HttpResponse<String> r = s.get(uri);
          schemas.assertDocumented(uri, r);
          assertThat(r.statusCode()).as(uri).isEqualTo(400);
          assertThat(
                  new JsonObject(r.body())
                      .getJsonArray("errors")
                      .getJsonObject(0)
                      .getString("field"))
              .as(uri)
              .isEqualTo(field);
        });
  }
}
