package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.localrt.RealServers;
import io.ambergarden.metrics.PrometheusText;
import io.vertx.core.json.JsonObject;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealServers.class)
@Timeout(300)
class LiveFeedIT {
  static final String LIVE_TOPIC = "it-live-" + UUID.randomUUID().toString().substring(0, 8);
  static TestService a;

  static Map<String, String> cfg() {
    return Map.of(
        "ingest.mode",
        "direct",
        "kafka.consumer.enabled",
        "false",
        "live.topic",
        LIVE_TOPIC,
        // the default outbound limit (1 MiB, 85 of the slow test's 12 KB events): the slow client
        // (never reads) still overflows it, since its socket holds at most ~4 MiB of the 12 MB
        // sent, and a normal client that lags two batches behind on a busy CI box does not (256 KiB
        // closed one once in CI)
        "live.max-buffered-bytes",
        "1048576",
        "live.heartbeat-interval",
        "1s",
        "live.replay-max-bytes",
        "262144",
        // alone, or a peer gone, after 2 s
        "live.presence-interval",
        "500ms");
  }

  @BeforeAll
  static void start() {
    a = TestService.start(cfg());
  }

  @AfterAll
  static void stop() {
    if (a != null) {
      a.close();
    }
  }

  static String event(String device, long ts, String id, String extra) {
    return "{\"deviceId\":\""
        + device
        + "\",\"ts\":"
        + ts
        + ",\"eventId\":\""
        + id
        + "\",\"code\":200"
        + extra
        + "}";
  }

  static Set<String> ids(List<JsonObject> events) {
    Set<String> out = new HashSet<>();
    events.forEach(e -> out.add(e.getString("eventId")));
    return out;
  }

  @Test
  void filteredEventsArriveOnceDurableAndHeartbeatsFlow() {
    String d = "live-" + UUID.randomUUID().toString().substring(0, 8);
    try (LiveClient mine = LiveClient.connect(a.port(), "devices=" + d);
        LiveClient otherCode = LiveClient.connect(a.port(), "devices=" + d + "&codes=500")) {
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> mine.sawType("live") && otherCode.sawType("live"));
      long now = System.currentTimeMillis();
      assertThat(
              a.postEvents(
                      "["
                          + event(d, now, "1", "")
                          + ","
                          + event("someone-else", now, "2", "")
                          + "]")
                  .statusCode())
          .isEqualTo(202);
      await().atMost(Duration.ofSeconds(10)).until(() -> mine.events().size() == 1);
      assertThat(mine.events().get(0).getString("deviceId")).isEqualTo(d);
      await().atMost(Duration.ofSeconds(5)).until(() -> mine.sawType("heartbeat"));
      assertThat(otherCode.events()).isEmpty();
    }
  }

  @Test
  void anInstanceAloneKeepsItsEventsOffTheTopicAndSharesThemOnceAnotherStarts() throws Exception {
    String d = "cross-" + UUID.randomUUID().toString().substring(0, 8);
    // a is alone once its start and any peer of an earlier test are a presence timeout behind: a
    // post is then counted as unshared. Each poll posts one event after looking for the last one
    List<String> posted = new ArrayList<>();
    double[] unshared = {metric("amber_live_relay_unshared_total")};
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              double now = metric("amber_live_relay_unshared_total");
              if (now > unshared[0]) {
                return true;
              }
              unshared[0] = now;
              String id = "alone-" + posted.size();
              assertThat(a.postEvents(event(d, System.currentTimeMillis(), id, "")).statusCode())
                  .isEqualTo(202);
              posted.add(id);
              return false;
            });
    String lastAlone = "\"eventId\":\"" + posted.get(posted.size() - 1) + "\"";
    List<org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]>> onTopic =
        Kafkas.readToEnd(LIVE_TOPIC, Duration.ofSeconds(30));
    assertThat(onTopic)
        .as("the announcements of a lone instance")
        .anyMatch(r -> r.value().length == 0);
    assertThat(onTopic)
        .as("records holding the event posted while alone")
        .noneMatch(r -> new String(r.value(), StandardCharsets.UTF_8).contains(lastAlone));

    try (ServiceProcess b = ServiceProcess.start("live-b", cfg());
        LiveClient onA = LiveClient.connect(a.port(), "devices=" + d);
        LiveClient onB = LiveClient.connect(b.port(), "devices=" + d)) {
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> onA.sawType("live") && onB.sawType("live"));
      await().atMost(Duration.ofSeconds(10)).until(() -> metric("amber_live_peers") == 1);
      HttpResponse<String> r =
          TestService.send(
              HttpRequest.newBuilder(b.uri("/api/v1/events"))
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          event(d, System.currentTimeMillis(), "via-b", "")))
                  .build());
      assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
      assertThat(a.postEvents(event(d, System.currentTimeMillis(), "via-a", "")).statusCode())
          .isEqualTo(202);
      await().atMost(Duration.ofSeconds(15)).until(() -> ids(onA.events()).contains("via-b"));
      await().atMost(Duration.ofSeconds(15)).until(() -> ids(onB.events()).contains("via-a"));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> metric("amber_live_peers") == 0);
  }

  @Test
  void slowClientIsClosedAndANormalOneKeepsReceiving() throws Exception {
    String d = "slow-" + UUID.randomUUID().toString().substring(0, 8);
    int port = a.port();
    try (Socket slow = LiveClient.rawUpgrade(port, "/api/v1/live?devices=" + d, null);
        LiveClient normal = LiveClient.connect(port, "devices=" + d)) {
      await().atMost(Duration.ofSeconds(10)).until(() -> normal.sawType("live"));
      await().atMost(Duration.ofSeconds(10)).until(() -> metric("amber_live_clients") >= 2);
      double before = metric("amber_live_disconnects_total");
      String payload = ",\"payload\":{\"blob\":\"" + "x".repeat(12_000) + "\"}";
      long ts = System.currentTimeMillis() - 60_000;
      int total = 0;
      for (int batch = 0; batch < 25; batch++) {
        StringBuilder body = new StringBuilder("[");
        for (int i = 0; i < 40; i++, total++) {
          body.append(i == 0 ? "" : ",").append(event(d, ts + total, "s" + total, payload));
        }
        assertThat(a.postEvents(body.append(']').toString()).statusCode()).isEqualTo(202);
        // a normal client keeps up with the writers: each batch (under the 1 MiB buffer) is read
        // before the next, so only the client that never reads can overflow, however busy the box
        int sent = total;
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> normal.isClosed() || normal.events().size() >= sent);
        assertThat(normal.isClosed()).as("the normal client was closed").isFalse();
      }
      int expected = total;
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> metric("amber_live_disconnects_total") > before);
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                assertThat(normal.isClosed()).as("the normal client was closed").isFalse();
                assertThat(normal.events()).as("events the normal client got").hasSize(expected);
              });
      assertThat(ids(normal.events())).hasSize(expected);
    }
  }

  @Test
  void resumeWithSinceHasNoGapAndNoDuplicate() throws Exception {
    String d = "resume-" + UUID.randomUUID().toString().substring(0, 8);
    long since = System.currentTimeMillis() - 120_000;
    List<String> posted = new ArrayList<>();
    StringBuilder body = new StringBuilder("[");
    // stored before the client connects, one of them older than since
    body.append(event(d, since - 5000, "too-old", ""));
    for (int i = 0; i < 30; i++) {
      body.append(',').append(event(d, since + i * 1000, "stored-" + i, ""));
      posted.add("stored-" + i);
    }
    assertThat(a.postEvents(body.append(']').toString()).statusCode()).isEqualTo(202);
    // a writer keeps posting while the client connects and replays
    Thread writer =
        new Thread(
            () -> {
              for (int i = 0; i < 40; i++) {
                if (a.postEvents(event(d, System.currentTimeMillis(), "during-" + i, ""))
                        .statusCode()
                    == 202) {
                  synchronized (posted) {
                    posted.add("during-" + i);
                  }
                }
              }
            });
    writer.start();
    try (LiveClient c = LiveClient.connect(a.port(), "devices=" + d + "&since=" + since)) {
      writer.join(60_000);
      await().atMost(Duration.ofSeconds(20)).until(() -> ids(c.events()).containsAll(posted));
      List<JsonObject> got = c.events();
      assertThat(ids(got)).containsExactlyInAnyOrderElementsOf(posted);
      assertThat(got).hasSize(posted.size());
      assertThat(c.sawType("live")).isTrue();
    }
  }

  @Test
  void foreignOriginIsRefusedAndBadFiltersAre400() throws Exception {
    int port = a.port();
    try (Socket s = LiveClient.rawUpgrade(port, "/api/v1/live", "http://evil.example")) {
      assertThat(LiveClient.statusLine(s)).contains("403");
    }
    try (Socket s = LiveClient.rawUpgrade(port, "/api/v1/live", "http://127.0.0.1:" + port)) {
      assertThat(LiveClient.statusLine(s)).contains("101");
    }
    try (Socket s =
        LiveClient.rawUpgrade(port, "/api/v1/live?since=" + System.currentTimeMillis(), null)) {
      assertThat(LiveClient.statusLine(s)).contains("400");
    }
    try (Socket s = LiveClient.rawUpgrade(port, "/api/v1/live?codes=abc", null)) {
      assertThat(LiveClient.statusLine(s)).contains("400");
    }
  }

  @Test
  void aReplayPastTheReplayMemoryIsRefusedWith1013AndTheFeedStaysUsable() throws Exception {
    String d = "replay-big-" + UUID.randomUUID().toString().substring(0, 8);
    long since = System.currentTimeMillis() - 600_000;
    String payload = ",\"payload\":{\"blob\":\"" + "y".repeat(1000) + "\"}";
    // 400 stored events of about 1 KB: far less than live.max-replay-events, but about 0.9 MB of
    // replay memory against the 256 KiB this instance allows
    for (int batch = 0; batch < 4; batch++) {
      StringBuilder body = new StringBuilder("[");
      for (int i = 0; i < 100; i++) {
        int n = batch * 100 + i;
        body.append(i == 0 ? "" : ",").append(event(d, since + n * 1000L, "r" + n, payload));
      }
      assertThat(a.postEvents(body.append(']').toString()).statusCode()).isEqualTo(202);
    }
    try (LiveClient c = LiveClient.connect(a.port(), "devices=" + d + "&since=" + since)) {
      await().atMost(Duration.ofSeconds(20)).until(c::isClosed);
      assertThat(c.closeCode()).isEqualTo(1013);
      assertThat(c.sawType("error")).isTrue();
      assertThat(c.events()).isEmpty();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> metric("amber_live_replay_bytes") == 0);
    assertThat(
            PrometheusText.sum(
                a.get("/metrics").body(), "amber_http_shed_total", "reason=\"replay_bytes\""))
        .isPositive();
    // a replay that fits still works
    try (LiveClient c =
        LiveClient.connect(a.port(), "devices=" + d + "&since=" + (since + 390_000))) {
      await().atMost(Duration.ofSeconds(20)).until(() -> c.events().size() == 10);
      assertThat(c.sawType("live")).isTrue();
    }
  }

  @Test
  void theFeedIsPushOnlyDataFromTheClientClosesItWith1003() throws Exception {
    int port = a.port();
    try (Socket s = LiveClient.rawUpgrade(port, "/api/v1/live?devices=talker", null)) {
      byte[] text = "{\"subscribe\":\"all\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
      assertThat(LiveClient.closeCodeAfterSending(s, 0x1, text.length, text)).isEqualTo(1003);
    }
    try (Socket s = LiveClient.rawUpgrade(port, "/api/v1/live?devices=talker", null)) {
      assertThat(LiveClient.closeCodeAfterSending(s, 0x2, 3, new byte[] {1, 2, 3})).isEqualTo(1003);
    }
  }

  @Test
  void aFrameLargerThanTheLimitClosesWith1009() throws Exception {
    int port = a.port();
    try (Socket s = LiveClient.rawUpgrade(port, "/api/v1/live?devices=big", null)) {
      // only the header and a little of the body: the limit is checked on the declared length
      assertThat(LiveClient.closeCodeAfterSending(s, 0x1, 1 << 20, new byte[1024])).isEqualTo(1009);
    }
    // the feed itself is unharmed
    try (LiveClient ok = LiveClient.connect(port, "devices=big")) {
      await().atMost(Duration.ofSeconds(10)).until(() -> ok.sawType("live"));
    }
  }

  static double metric(String name) {
    return PrometheusText.sum(a.get("/metrics").body(), name);
  }
}
