package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.localrt.RealServers;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The counter answers read the schema-6 tables as their contract says, whatever writes them: the
 * test writes the rows itself (exact rows, approximate counters, reopened hours and the shards'
 * progress) into a keyspace of its own, with the rollups off so nothing else moves the progress.
 */
@ExtendWith(RealServers.class)
@Timeout(300)
class CounterReadsIT {
  static final String KEYSPACE = "amber_it_counter_reads";
  static final long HOUR = 3_600_000L;
  static final int SHARDS = 4;
  static final Duration GRACE = Duration.ofMinutes(2);

  static long dayStart(LocalDate d) {
    return d.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
  }

  static LocalDate dayOf(long ts) {
    return LocalDate.ofInstant(Instant.ofEpochMilli(ts), ZoneOffset.UTC);
  }

  static JsonObject get(TestService s, String path) {
    HttpResponse<String> r = s.get(path);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return new JsonObject(r.body());
  }

  static void exec(CqlSession cql, String query, Object... values) {
    cql.execute(SimpleStatement.newInstance(query.replace("ks.", KEYSPACE + "."), values));
  }

  static void deviceExact(CqlSession cql, String device, long hour, String name, long n) {
    exec(
        cql,
        "INSERT INTO ks.device_exact_counts (device_id, hour, name, events) VALUES (?, ?, ?, ?)",
        device,
        Instant.ofEpochMilli(hour),
        name,
        n);
  }

  static void deviceApprox(
      CqlSession cql, String device, int shard, long hour, String name, long n) {
    exec(
        cql,
        "UPDATE ks.device_counts_by_hour SET events = events + ?"
            + " WHERE day = ? AND shard = ? AND device_id = ? AND hour = ? AND name = ?",
        n,
        dayOf(hour),
        shard,
        device,
        Instant.ofEpochMilli(hour),
        name);
  }

  static void dayExact(CqlSession cql, int shard, long hour, String dim, String value, long n) {
    exec(
        cql,
        "INSERT INTO ks.status_exact_by_hour (day, shard, hour, dimension, value, events)"
            + " VALUES (?, ?, ?, ?, ?, ?)",
        dayOf(hour),
        shard,
        Instant.ofEpochMilli(hour),
        dim,
        value,
        n);
  }

  static void dayApprox(CqlSession cql, int shard, long hour, String dim, String value, long n) {
    exec(
        cql,
        "UPDATE ks.status_counts_by_hour SET events = events + ?"
            + " WHERE day = ? AND shard = ? AND hour = ? AND dimension = ? AND value = ?",
        n,
        dayOf(hour),
        shard,
        Instant.ofEpochMilli(hour),
        dim,
        value);
  }

  @Test
  void countersServeExactRowsOfReconciledHoursAndCountersOfTheOthersWithTheirLimits() {
    TestService.dropKeyspace(KEYSPACE);
    String device = "cr-" + UUID.randomUUID().toString().substring(0, 8);
    int shard = RowKeys.salt(device, SHARDS);
    int other = (shard + 1) % SHARDS;
    long now = System.currentTimeMillis();
    long e = now / HOUR * HOUR - 3 * HOUR;
    long a = e - 2 * HOUR;
    long b = e - HOUR;
    LocalDate today = dayOf(now);
    LocalDate past = today.minusDays(2);
    long p = dayStart(past);
    try (TestService s =
            TestService.start(
                Map.of(
                    "cassandra.keyspace",
                    KEYSPACE,
                    "ingest.mode",
                    "direct",
                    "kafka.consumer.enabled",
                    "false",
                    "rollup.enabled",
                    "false",
                    // the test writes the counter rows itself: nothing may apply or reconcile
                    "counters.enabled",
                    "false",
                    "rollup.shards",
                    Integer.toString(SHARDS),
                    "rollup.grace",
                    GRACE.toSeconds() + "s"));
        CqlSession cql = TestService.cql()) {
      // no shard has progress yet: nothing is exact, nothing known counted
      JsonObject empty = get(s, "/api/v1/devices/" + device + "/counters");
      assertThat(empty.getLong("total")).isZero();
      assertThat(empty.containsKey("exactThrough")).isTrue();
      assertThat(empty.getValue("exactThrough")).isNull();
      assertThat(empty.getValue("countedThrough")).isNull();
      JsonObject emptyDay = get(s, "/api/v1/stats/status?day=" + today);
      assertThat(emptyDay.getLong("exactThrough")).isEqualTo(dayStart(today));
      assertThat(emptyDay.getInteger("shards")).isEqualTo(SHARDS);

      // every shard reconciled through e; counted through the least shard's value
      long countedThrough = now - 5_000;
      for (int sh = 0; sh < SHARDS; sh++) {
        exec(
            cql,
            "INSERT INTO ks.rollup_shards (shard, owner, lease_until, done_until)"
                + " VALUES (?, '', ?, ?)",
            sh,
            Instant.ofEpochMilli(now),
            Instant.ofEpochMilli(e + GRACE.toMillis() + 5_000));
        exec(
            cql,
            "INSERT INTO ks.count_progress (shard, counted_until) VALUES (?, ?)",
            sh,
            Instant.ofEpochMilli(countedThrough + sh * 1000L));
      }
      // hour a exact; hour b exact but reopened by a late event; hour e written by a recompute
      // before done_until moved (not reconciled yet); hour e + 1 only counted
      deviceExact(cql, device, a, "status:normal", 10);
      deviceExact(cql, device, a, "none", 1);
      deviceExact(cql, device, b, "status:normal", 20);
      deviceExact(cql, device, e, "status:normal", 1000);
      deviceApprox(cql, device, shard, a, "status:normal", 99);
      deviceApprox(cql, device, shard, b, "status:normal", 21);
      deviceApprox(cql, device, shard, b, "status:fault", 2);
      deviceApprox(cql, device, shard, e, "status:normal", 5);
      deviceApprox(cql, device, shard, e + HOUR, "status:fault", 3);
      exec(
          cql,
          "INSERT INTO ks.device_reopened_hours (device_id, hour, due_bucket) VALUES (?, ?, ?)",
          device,
          Instant.ofEpochMilli(b),
          Instant.ofEpochMilli(now));

      String counters = "/api/v1/devices/" + device + "/counters";
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                JsonObject c = get(s, counters);
                assertThat(c.getLong("countedThrough")).isEqualTo(countedThrough);
                assertThat(c.getLong("exactThrough")).isEqualTo(b);
                assertThat(c.getLong("total")).isEqualTo(10 + 1 + 21 + 2 + 5 + 3);
                assertThat(c.getJsonObject("byStatus").getMap())
                    .containsExactlyInAnyOrderEntriesOf(Map.of("normal", 36, "fault", 5));
              });
      // hour b reconciled again: its exact row counts, and exactThrough returns to e
      exec(cql, "DELETE FROM ks.device_reopened_hours WHERE device_id = ?", device);
      JsonObject reconciled = get(s, counters);
      assertThat(reconciled.getLong("exactThrough")).isEqualTo(e);
      assertThat(reconciled.getLong("total")).isEqualTo(10 + 1 + 20 + 5 + 3);

      // a day wholly reconciled, with one hour of the device's shard reopened
      long reopened = p + 5 * HOUR;
      dayExact(cql, shard, p + HOUR, "all", "", 10);
      dayExact(cql, shard, p + HOUR, "type", "t-" + device, 10);
      dayExact(cql, shard, reopened, "all", "", 7);
      dayApprox(cql, shard, p + HOUR, "all", "", 99);
      dayApprox(cql, shard, reopened, "all", "", 8);
      dayApprox(cql, shard, reopened, "type", "t-" + device, 8);
      dayExact(cql, other, p + 2 * HOUR, "all", "", 4);
      dayApprox(cql, other, p + 2 * HOUR, "all", "", 50);
      exec(
          cql,
          "INSERT INTO ks.shard_reopened_hours (day, shard, hour, due_bucket) VALUES (?, ?, ?, ?)",
          past,
          shard,
          Instant.ofEpochMilli(reopened),
          Instant.ofEpochMilli(now));
      // the day of e: hour e was written exact before done_until moved, and is counted
      dayExact(cql, other, e, "type", "race-" + device, 500);
      dayApprox(cql, other, e, "type", "race-" + device, 6);

      JsonObject day = get(s, "/api/v1/stats/status?day=" + past);
      assertThat(day.getLong("exactThrough")).isEqualTo(reopened);
      assertThat(day.getLong("countedThrough")).isEqualTo(countedThrough);
      assertThat(day.getLong("total")).isEqualTo(10 + 8 + 4);
      assertThat(day.getJsonObject("byType").getLong("t-" + device)).isEqualTo(18);

      JsonObject range = get(s, "/api/v1/stats/status?from=" + past + "&to=" + today.plusDays(1));
      assertThat(range.getLong("countedThrough")).isEqualTo(countedThrough);
      assertThat(range.getJsonArray("days")).hasSize(3);
      assertThat(range.getJsonArray("days").getJsonObject(0).getLong("exactThrough"))
          .isEqualTo(reopened);
      assertThat(range.getJsonArray("days").getJsonObject(2).getLong("exactThrough"))
          .isEqualTo(Math.max(dayStart(today), e));
      assertThat(range.getJsonObject("totals").getJsonObject("byType").getLong("race-" + device))
          .isEqualTo(6);
      JsonObject dayOfE = get(s, "/api/v1/stats/status?day=" + dayOf(e));
      assertThat(dayOfE.getJsonObject("byType").getLong("race-" + device)).isEqualTo(6);
    }
  }
}
