package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.datastax.oss.driver.api.core.CqlSession;
import io.ambergarden.cassandra.FleetFacets;
import io.ambergarden.localrt.RealServers;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fleet view, stats over day ranges, device activity and a sparse device type's paging, against
 * the real servers. Every test uses its own device type, so the fleet of other test classes in the
 * shared keyspace never shows.
 */
@ExtendWith(RealServers.class)
@Timeout(240)
class FleetIT {
  static TestService s;

  @BeforeAll
  static void start() {
    s = TestService.start(Map.of("ingest.mode", "direct", "kafka.consumer.enabled", "false"));
  }

  @AfterAll
  static void stop() {
    if (s != null) {
      s.close();
    }
  }

  static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  static String event(String device, long ts, String type, String status, Integer code) {
    return new JsonObject()
        .put("deviceId", device)
        .put("ts", ts)
        .put("deviceType", type)
        .put("status", status)
        .put("code", code)
        .put("metrics", new JsonObject().put("temperature", 20.5))
        .encode();
  }

  static void post(String... events) {
    HttpResponse<String> r = s.postEvents("[" + String.join(",", events) + "]");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
  }

  static JsonObject get(String path) {
    HttpResponse<String> r = s.get(path);
    assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
    return new JsonObject(r.body());
  }

  /** Every device of a filtered list, following the cursors. */
  static List<JsonObject> all(String query, int limit) {
    List<JsonObject> out = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      JsonObject page =
          get(
              "/api/v1/devices?"
                  + query
                  + "&limit="
                  + limit
                  + (cursor == null
                      ? ""
                      : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8)));
      JsonArray items = page.getJsonArray("items");
      for (int i = 0; i < items.size(); i++) {
        out.add(items.getJsonObject(i));
      }
      cursor = page.getString("next");
    } while (cursor != null && ++pages < 50);
    return out;
  }

  static List<String> ids(List<JsonObject> devices) {
    return devices.stream().map(d -> d.getString("deviceId")).toList();
  }

  @Test
  void theFleetListsEveryDeviceOnceInIdOrderWithItsLatestState() {
    String type = unique("fleet");
    long now = System.currentTimeMillis();
    List<String> events = new ArrayList<>();
    List<String> devices = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      String d = type + "-d" + i;
      devices.add(d);
      events.add(event(d, now - 5000, type, "normal", 200));
      events.add(
          event(d, now - 1000 + i, type, i % 3 == 0 ? "fault" : "normal", i % 3 == 0 ? 503 : 200));
    }
    post(events.toArray(String[]::new));

    List<JsonObject> listed = all("type=" + type, 3);
    assertThat(ids(listed)).containsExactlyElementsOf(devices.stream().sorted().toList());
    JsonObject d0 = listed.get(0);
    assertThat(d0.getString("deviceType")).isEqualTo(type);
    assertThat(d0.getLong("lastSeen")).isEqualTo(now - 1000);
    assertThat(d0.getString("status")).isEqualTo("fault");
    assertThat(d0.getInteger("code")).isEqualTo(503);
    assertThat(d0.getBoolean("abnormal")).isTrue();
    assertThat(d0.getJsonObject("metrics").getDouble("temperature")).isEqualTo(20.5);

    assertThat(ids(all("type=" + type + "&abnormal=true", 2)))
        .containsExactly(type + "-d0", type + "-d3", type + "-d6");
    assertThat(ids(all("type=" + type + "&abnormal=false", 2)))
        .containsExactly(type + "-d1", type + "-d2", type + "-d4", type + "-d5");
    assertThat(ids(all("type=" + type + "&status=fault", 10)))
        .containsExactly(type + "-d0", type + "-d3", type + "-d6");
  }

  @Test
  void aDeviceThatChangesStatusOrTypeMovesBetweenTheFilteredLists() {
    String type = unique("move");
    String other = unique("moved");
    String d = type + "-x";
    long now = System.currentTimeMillis();
    post(event(d, now - 3000, type, "normal", 200));
    assertThat(ids(all("type=" + type + "&status=normal", 10))).containsExactly(d);

    post(event(d, now - 2000, type, "fault", 500));
    assertThat(ids(all("type=" + type + "&status=normal", 10))).isEmpty();
    assertThat(ids(all("type=" + type + "&status=fault", 10))).containsExactly(d);
    assertThat(ids(all("type=" + type + "&abnormal=true", 10))).containsExactly(d);

    post(event(d, now - 1000, other, "normal", 200));
    assertThat(ids(all("type=" + type, 10))).isEmpty();
    assertThat(ids(all("type=" + type + "&abnormal=true", 10))).isEmpty();
    assertThat(ids(all("type=" + other, 10))).containsExactly(d);
    assertThat(ids(all("type=" + other + "&status=normal", 10))).containsExactly(d);
  }

  @Test
  void aLateEventNeverMakesADevicesStateOlder() {
    String type = unique("late");
    String d = type + "-y";
    long now = System.currentTimeMillis();
    post(event(d, now, type, "fault", 503));
    // an older event arrives afterwards, with another status
    post(event(d, now - 60_000, type, "normal", 200));

    List<JsonObject> listed = all("type=" + type, 10);
    assertThat(ids(listed)).containsExactly(d);
    assertThat(listed.get(0).getLong("lastSeen")).isEqualTo(now);
    assertThat(listed.get(0).getString("status")).isEqualTo("fault");
    assertThat(ids(all("type=" + type + "&status=normal", 10))).isEmpty();
    assertThat(get("/api/v1/devices/" + d + "/latest").getString("status")).isEqualTo("fault");
  }

  @Test
  void aStaleIndexRowIsSkippedAndRemovedByTheRead() {
    String type = unique("stale");
    String d = type + "-z";
    long now = System.currentTimeMillis();
    post(event(d, now, type, "normal", 200));
    // what a writer that lost its memory (a restart) leaves behind: a pointer of an older state,
    // more than a refresh older (a younger one may still be trusted by a writer, and is kept)
    long pointerTs = now - s.config().fleet().refresh().toMillis() - 10_000;
    String facet = FleetFacets.typeStatus(type, "fault");
    int shard = FleetFacets.shard(d, s.config().fleet().shards());
    try (CqlSession cql = TestService.cql()) {
      cql.execute(
          "INSERT INTO "
              + TestService.KEYSPACE
              + ".fleet_index (facet, shard, device_id, ts) VALUES (?, ?, ?, ?) USING TIMESTAMP ?",
          facet,
          shard,
          d,
          Instant.ofEpochMilli(pointerTs),
          pointerTs * 1000);
      assertThat(ids(all("type=" + type + "&status=fault", 10))).isEmpty();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  cql.execute(
                              "SELECT device_id FROM "
                                  + TestService.KEYSPACE
                                  + ".fleet_index WHERE facet = ? AND shard = ? AND device_id = ?",
                              facet,
                              shard,
                              d)
                          .one()
                      == null);
    }
    assertThat(ids(all("type=" + type + "&status=normal", 10))).containsExactly(d);
  }

  @Test
  void badFleetParametersAreNamed() {
    HttpResponse<String> r = s.get("/api/v1/devices?abnormal=maybe");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("abnormal");
    assertThat(s.get("/api/v1/devices?type=../x").statusCode()).isEqualTo(400);
    assertThat(s.get("/api/v1/devices?limit=0").body()).contains("limit");
    String type = unique("cur");
    post(
        event(type + "-a", System.currentTimeMillis(), type, "normal", 200),
        event(type + "-b", System.currentTimeMillis(), type, "normal", 200));
    String next = get("/api/v1/devices?type=" + type + "&limit=1").getString("next");
    assertThat(next).isNotNull();
    // a cursor is bound to its filter
    HttpResponse<String> foreign =
        s.get("/api/v1/devices?type=" + type + "&status=normal&limit=1&cursor=" + next);
    assertThat(foreign.statusCode()).isEqualTo(400);
    assertThat(foreign.body()).contains("cursor");
  }

  @Test
  void statsOverARangeGiveOneEntryPerDayPlusTotalsWithPerTypeCounts() {
    String type = unique("stats");
    LocalDate today = LocalDate.now(ZoneOffset.UTC);
    long now = System.currentTimeMillis();
    long yesterday =
        today.minusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli() + 3_600_000;
    post(
        event(type + "-1", now, type, "normal", 200),
        event(type + "-1", now - 1, type, "fault", 503),
        event(type + "-2", yesterday, type, "normal", 200));
    String range = "/api/v1/stats/status?from=" + today.minusDays(1) + "&to=" + today.plusDays(1);
    // counters are applied from the count journal once its bucket is safe to read: with the
    // default rollup settings 10 s buckets read 20 s after they end, on a 5 s scan
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              JsonObject r = get(range);
              JsonArray days = r.getJsonArray("days");
              assertThat(days).hasSize(2);
              assertThat(days.getJsonObject(0).getString("day"))
                  .isEqualTo(today.minusDays(1).toString());
              assertThat(days.getJsonObject(0).getJsonObject("byType").getLong(type)).isEqualTo(1);
              assertThat(days.getJsonObject(1).getJsonObject("byType").getLong(type)).isEqualTo(2);
              assertThat(r.getJsonObject("totals").getJsonObject("byType").getLong(type))
                  .isEqualTo(3);
              long sum =
                  days.getJsonObject(0).getLong("total") + days.getJsonObject(1).getLong("total");
              assertThat(r.getJsonObject("totals").getLong("total")).isEqualTo(sum);
            });
    // day= keeps its shape, with the type counts added
    JsonObject day = get("/api/v1/stats/status?day=" + today);
    assertThat(day.getString("day")).isEqualTo(today.toString());
    assertThat(day.getJsonObject("byType").getLong(type)).isEqualTo(2);

    int max = s.config().query().statsMaxDays();
    HttpResponse<String> tooLong =
        s.get("/api/v1/stats/status?from=" + today.minusDays(max) + "&to=" + today.plusDays(1));
    assertThat(tooLong.statusCode()).isEqualTo(400);
    assertThat(tooLong.body()).contains("to");
    assertThat(s.get("/api/v1/stats/status?day=" + today + "&from=" + today).body())
        .contains("day");
    assertThat(s.get("/api/v1/stats/status?from=" + today + "&to=" + today).statusCode())
        .isEqualTo(400);
  }

  @Test
  void devicesSeenInTheLastHourCountsEachDeviceOnce() {
    String type = unique("act");
    long now = System.currentTimeMillis();
    int before = get("/api/v1/stats/activity?minutes=60").getInteger("devices");
    post(
        event(type + "-1", now - 1000, type, "normal", 200),
        event(type + "-1", now, type, "normal", 200),
        event(type + "-2", now, type, "normal", 200));
    JsonObject after = get("/api/v1/stats/activity?minutes=60");
    assertThat(after.getInteger("devices")).isGreaterThanOrEqualTo(before + 2);
    assertThat(after.getBoolean("truncated")).isFalse();
    assertThat(s.get("/api/v1/stats/activity?minutes=0").statusCode()).isEqualTo(400);
  }

  @Test
  void aSparseDeviceTypePagesThroughItsOwnBucketsNotEveryHour() {
    String type = unique("sparse");
    long now = System.currentTimeMillis();
    // two events 30 days apart: 720 hourly buckets between them, 48 read per page before
    post(event(type + "-1", now, type, "normal", 200));
    post(event(type + "-1", now - 30L * 24 * 3_600_000, type, "normal", 200));
    JsonObject page = get("/api/v1/device-types/" + type + "/events?limit=10");
    assertThat(page.getJsonArray("items")).hasSize(2);
    assertThat(page.getString("next")).isNull();
  }
}
