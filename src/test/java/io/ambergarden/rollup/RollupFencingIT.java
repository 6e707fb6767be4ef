package io.ambergarden.rollup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.it.TestService;
import io.ambergarden.lease.LeasePlanner;
import io.ambergarden.lease.ShardLeases;
import io.ambergarden.lease.ShardTerms;
import io.ambergarden.localrt.RealServers;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Lease fencing of rollup writes against the real Cassandra: an owner whose lease was taken over
 * writes the rollup it computed earlier after the new owner wrote a newer one, and the newer one
 * stands.
 */
@ExtendWith(RealServers.class)
@Timeout(300)
class RollupFencingIT {
  private static final String KEYSPACE = "amber_it_fencing";
  private static final long HOUR = TimeBuckets.HOUR;
  private static final int SHARD = 5;

  @Test
  void aStaleOwnersLateRollupWriteLosesToTheNewOwnersNewerRecompute() throws Exception {
    TestService.dropKeyspace(KEYSPACE);
    long hour = (System.currentTimeMillis() / HOUR - 30) * HOUR;
    String device = "fence-" + UUID.randomUUID().toString().substring(0, 8);
    Vertx vertx = Vertx.vertx();
    try (TestService s =
            TestService.start(
                Map.of(
                    "cassandra.keyspace", KEYSPACE,
                    "ingest.mode", "direct",
                    "kafka.consumer.enabled", "false",
                    // the two owners below are the only rollup writers
                    "rollup.enabled", "false",
                    "counters.enabled", "false"));
        CqlSession session = TestService.cql()) {
      CassandraClient client = CassandraClients.shared(vertx, s.config().cassandra());
      // one awaited first use: concurrent first uses of a shared client fail to connect
      done(client.metadata());
      RollupStatements cql = done(RollupStatements.prepare(client, KEYSPACE));
      HourRecompute hours = new HourRecompute(client, cql, s.config(), null);
      done(client.execute(cql.createShard().bind(SHARD, Instant.EPOCH, Instant.EPOCH)));
      post(s, device, hour, 0, 20);

      // owner A takes the shard and reads the hour: 20 events
      ShardTerms termsA = new ShardTerms(Duration.ofSeconds(2));
      ShardLeases a = new ShardLeases(client, cql.leases(), "owner-a", termsA);
      assertThat(done(a.claim(rows(client, cql), System.currentTimeMillis()))).hasSize(1);
      long stampA = termsA.stamp(SHARD, System.currentTimeMillis()).orElseThrow();
      Map<String, RollupAggregator.Stats> readByA = done(hours.aggregate(device, hour)).stats();
      assertThat(readByA.get("temp").count()).isEqualTo(20);

      // A stalls (a long pause, a slow store) while 5 more events land and its lease runs out
      post(s, device, hour, 20, 5);
      long untilA = termsA.term(SHARD).leaseUntil();
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> System.currentTimeMillis() > untilA);

      // owner B takes the lease over and recomputes: 25 events
      ShardTerms termsB = new ShardTerms(Duration.ofSeconds(30));
      ShardLeases b = new ShardLeases(client, cql.leases(), "owner-b", termsB);
      assertThat(done(b.claim(rows(client, cql), System.currentTimeMillis()))).hasSize(1);
      long stampB = termsB.stamp(SHARD, System.currentTimeMillis()).orElseThrow();
      done(hours.recompute(SHARD, device, hour, stampB));
      assertThat(tempCount(session, device, hour)).isEqualTo(25);

      // the stale owner's write arrives last, and Cassandra takes it, but it loses
      done(hours.write(device, hour, readByA, stampA));
      assertThat(tempCount(session, device, hour)).as("the newer recompute stands").isEqualTo(25);
      assertThat(
              s.get("/api/v1/devices/" + device + "/rollups?from=" + hour + "&to=" + (hour + HOUR))
                  .body())
          .contains("\"count\":25");
      // and A can no longer renew: its renewal is conditional on its own lease_until
      assertThat(termsA.holds(SHARD, System.currentTimeMillis())).isFalse();
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  private static List<LeasePlanner.Shard> rows(CassandraClient client, RollupStatements cql)
      throws Exception {
    return done(client.executeWithFullFetch(cql.readShards().bind(List.of(SHARD)))).stream()
        .map(
            r ->
                new LeasePlanner.Shard(
                    r.getInt(0),
                    r.getString(1),
                    r.getInstant(2) == null ? 0 : r.getInstant(2).toEpochMilli(),
                    r.getInstant(3) == null ? 0 : r.getInstant(3).toEpochMilli()))
        .toList();
  }

  private static void post(TestService s, String device, long hour, int from, int n) {
    StringBuilder body = new StringBuilder("[");
    for (int i = from; i < from + n; i++) {
      body.append(i == from ? "" : ",")
          .append("{\"deviceId\":\"")
          .append(device)
          .append("\",\"ts\":")
          .append(hour + i * 60_000L)
          .append(",\"eventId\":\"e")
          .append(i)
          .append("\",\"metrics\":{\"temp\":")
          .append(20 + i)
          .append("}}");
    }
    assertThat(s.postEvents(body.append("]").toString()).statusCode()).isEqualTo(202);
  }

  private static long tempCount(CqlSession session, String device, long hour) {
    Row r =
        session
            .execute(
                "SELECT count FROM "
                    + KEYSPACE
                    + ".rollups_by_device WHERE device_id = ? AND day = ? AND hour = ?"
                    + " AND metric = 'temp'",
                device,
                TimeBuckets.utcDay(hour),
                Instant.ofEpochMilli(hour))
            .one();
    return r == null ? -1 : r.getLong(0);
  }

  private static <T> T done(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}
