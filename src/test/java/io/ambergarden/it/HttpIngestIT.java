package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.datastax.oss.driver.api.core.CqlSession;
import io.ambergarden.localrt.RealServers;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@ExtendWith(RealServers.class)
@Timeout(300)
class HttpIngestIT {
  static TestService viaKafka;
  static TestService direct;
  static CqlSession cql;

  @BeforeAll
  static void start() {
    viaKafka = TestService.start(Map.of());
    direct =
        TestService.start(
            Map.of(
                "ingest.mode",
                "direct",
                "kafka.consumer.enabled",
                "false",
                "http.max-body-bytes",
                "65536"));
    cql = TestService.cql();
  }

  @AfterAll
  static void stop() {
    if (cql != null) {
      cql.close();
    }
    if (viaKafka != null) {
      viaKafka.close();
    }
    if (direct != null) {
      direct.close();
    }
  }

  static String device() {
    return "dev-" + UUID.randomUUID();
  }

  static String event(String device, long ts, String extra) {
    return "{\"deviceId\":\""
        + device
        + "\",\"ts\":"
        + ts
        + (extra.isEmpty() ? "" : "," + extra)
        + "}";
  }

  static JsonArray items(TestService s, String device) {
    HttpResponse<String> r = s.get("/api/v1/devices/" + device + "/events");
    assertThat(r.statusCode()).isEqualTo(200);
    return new JsonObject(r.body()).getJsonArray("items");
  }

  static long detailRows(String device) {
    return cql.execute(
            "SELECT count(*) FROM "
                + TestService.KEYSPACE
                + ".events_by_device WHERE device_id = ? AND bucket IN ?",
            device,
            java.util.List.of(
                java.time.Instant.ofEpochMilli(System.currentTimeMillis() / 3_600_000 * 3_600_000),
                java.time.Instant.ofEpochMilli(
                    (System.currentTimeMillis() / 3_600_000 - 1) * 3_600_000)))
        .one()
        .getLong(0);
  }

  @Test
  void postedEventIsReadBackInKafkaMode() {
    String d = device();
    long now = System.currentTimeMillis();
    HttpResponse<String> r =
        viaKafka.postEvents(
            "["
                + event(d, now, "\"status\":\"normal\",\"metrics\":{\"t\":1.5}")
                + ","
                + event(d, now - 10, "")
                + "]");
    assertThat(r.statusCode()).isEqualTo(202);
    assertThat(new JsonObject(r.body()).getInteger("accepted")).isEqualTo(2);
    await().atMost(Duration.ofSeconds(20)).until(() -> items(viaKafka, d).size() == 2);
    JsonObject newest = items(viaKafka, d).getJsonObject(0);
    assertThat(newest.getLong("ts")).isEqualTo(now);
    assertThat(newest.getString("status")).isEqualTo("normal");
    assertThat(newest.getJsonObject("metrics").getDouble("t")).isEqualTo(1.5);
  }

  /** The read replies are streamed from the stored events: every field, as it was posted. */
  @Test
  void everyFieldIsReadBackAsPostedByEachRead() {
    String d = device();
    String type = "t-" + UUID.randomUUID().toString().substring(0, 8);
    long now = System.currentTimeMillis();
    JsonObject full =
        new JsonObject(
            event(
                d,
                now,
                "\"eventId\":\"e-1\",\"deviceType\":\""
                    + type
                    + "\",\"status\":\"fault\",\"code\":503,"
                    + "\"metrics\":{\"t\":-1.25e-3,\"v\":230},"
                    + "\"tags\":{\"site\":\"caf\u00e9 \\\"7\\\" \\\\ \ud83d\ude00\"},"
                    + "\"payload\":{\"fw\":\"4.2\",\"cells\":[3.31,null,true],\"s\":\"a\\nb\"}"));
    JsonObject minimal = new JsonObject(event(d, now - 10, "\"deviceType\":\"" + type + "\""));
    assertThat(direct.postEvents(new JsonArray().add(full).add(minimal).encode()).statusCode())
        .isEqualTo(202);
    // as posted, plus the eventId every read shows ("" when the event had none)
    JsonObject minimalRead = minimal.copy().put("eventId", "");
    assertThat(items(direct, d)).containsExactly(full, minimalRead);
    assertThat(new JsonObject(direct.get("/api/v1/devices/" + d + "/latest").body()))
        .isEqualTo(full);
    JsonObject byType =
        new JsonObject(direct.get("/api/v1/device-types/" + type + "/events").body());
    assertThat(byType.getJsonArray("items")).containsExactly(full, minimalRead);
    assertThat(byType.containsKey("next")).isTrue();
  }

  @Test
  void postedEventIsDurableBeforeTheAnswerInDirectMode() {
    String d = device();
    long now = System.currentTimeMillis();
    String ndjson =
        event(d, now, "\"eventId\":\"a\"") + "\n" + event(d, now, "\"eventId\":\"b\"") + "\n";
    assertThat(direct.post("/api/v1/events", "application/x-ndjson", ndjson).statusCode())
        .isEqualTo(202);
    // no waiting: a 202 in direct mode means the rows are already written
    assertThat(items(direct, d)).hasSize(2);
    assertThat(detailRows(d)).isEqualTo(2);
  }

  @Test
  void largePayloadsOfOneDevicehourAreStoredDespiteCassandrasBatchSizeLimit() {
    // 10 events x 12 KiB = 120 KiB in one partition. Cassandra refuses a batch over
    // batch_size_fail_threshold
    // (50 KiB) unless it touches one partition (CASSANDRA-10876): this holds the writer to
    // single-partition batches
    String d = device();
    long now = System.currentTimeMillis();
    String payload = "\"payload\":{\"blob\":\"" + "x".repeat(12_000) + "\"}";
    StringBuilder body = new StringBuilder("[");
    for (int i = 0; i < 10; i++) {
      body.append(i == 0 ? "" : ",")
          .append(event(d, now - i, "\"eventId\":\"p" + i + "\"," + payload));
    }
    HttpResponse<String> r = viaKafka.postEvents(body.append("]").toString());

    assertThat(r.statusCode()).isEqualTo(202);
    await().atMost(Duration.ofSeconds(30)).until(() -> detailRows(d) == 10);
    assertThat(items(viaKafka, d)).hasSize(10);
  }

  @Test
  void redeliveredEventLeavesExactlyOneDetailRow() {
    for (TestService s : new TestService[] {viaKafka, direct}) {
      String d = device();
      String e = event(d, System.currentTimeMillis(), "\"eventId\":\"same\",\"code\":200");
      assertThat(s.postEvents(e).statusCode()).isEqualTo(202);
      assertThat(s.postEvents(e).statusCode()).isEqualTo(202);
      await().atMost(Duration.ofSeconds(20)).until(() -> items(s, d).size() >= 1);
      // give the second copy every chance to land as a second row
      await()
          .during(Duration.ofMillis(1500))
          .atMost(Duration.ofSeconds(5))
          .until(() -> detailRows(d) == 1);
    }
  }

  @Test
  void lateOlderEventDoesNotReplaceLatestState() {
    String d = device();
    long now = System.currentTimeMillis();
    assertThat(direct.postEvents(event(d, now, "\"status\":\"new\"")).statusCode()).isEqualTo(202);
    assertThat(direct.postEvents(event(d, now - 60_000, "\"status\":\"old\"")).statusCode())
        .isEqualTo(202);
    JsonObject latest = new JsonObject(direct.get("/api/v1/devices/" + d + "/latest").body());
    assertThat(latest.getString("status")).isEqualTo("new");
    assertThat(latest.getLong("ts")).isEqualTo(now);
    assertThat(direct.get("/api/v1/devices/" + device() + "/latest").statusCode()).isEqualTo(404);
  }

  @Test
  void wrongTypeIsA400NamingTheField() {
    HttpResponse<String> r =
        direct.postEvents(
            "["
                + event(device(), System.currentTimeMillis(), "")
                + ","
                + event(device(), System.currentTimeMillis(), "\"code\":\"500\"")
                + "]");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    JsonObject problem = new JsonObject(r.body());
    assertThat(problem.getJsonArray("errors").getJsonObject(0).getMap())
        .containsEntry("index", 1)
        .containsEntry("field", "code");
  }

  /** Each rule of the event, through the real HTTP stack: a 400 problem naming the field. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      deviceId     | {"ts":NOW}
      deviceId     | {"deviceId":42,"ts":NOW}
      deviceId     | {"deviceId":"has space","ts":NOW}
      ts           | {"deviceId":"d1"}
      ts           | {"deviceId":"d1","ts":"yesterday"}
      ts           | {"deviceId":"d1","ts":1752537600}
      ts           | {"deviceId":"d1","ts":"2026-01-01T00:00:00"}
      ts           | {"deviceId":"d1","ts":1}
      code         | {"deviceId":"d1","ts":NOW,"code":"500"}
      code         | {"deviceId":"d1","ts":NOW,"code":1.5}
      status       | {"deviceId":"d1","ts":NOW,"status":7}
      deviceType   | {"deviceId":"d1","ts":NOW,"deviceType":["a"]}
      eventId      | {"deviceId":"d1","ts":NOW,"eventId":{}}
      metrics      | {"deviceId":"d1","ts":NOW,"metrics":[1]}
      metrics.t    | {"deviceId":"d1","ts":NOW,"metrics":{"t":"hot"}}
      tags.site    | {"deviceId":"d1","ts":NOW,"tags":{"site":3}}
      payload      | {"deviceId":"d1","ts":NOW,"payload":"PAYLOAD"}
      """)
  void everyRuleIsA400NamingTheField(String field, String template) {
    String body =
        template
            .replace("NOW", Long.toString(System.currentTimeMillis()))
            .replace("PAYLOAD", "x".repeat(20_000));
    HttpResponse<String> r = direct.postEvents(body);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    JsonArray errors = new JsonObject(r.body()).getJsonArray("errors");
    assertThat(errors.stream().map(e -> ((JsonObject) e).getString("field")))
        .as(r.body())
        .contains(field);
  }

  @Test
  void anInvalidBatchAcceptsNothing() {
    String d = device();
    HttpResponse<String> r =
        direct.postEvents(
            "[" + event(d, System.currentTimeMillis(), "") + ",{\"deviceId\":\"" + d + "\"}]");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(items(direct, d)).isEmpty();
  }

  @Test
  void wrongContentTypeIs415AndTooLargeBodyIs413() {
    HttpResponse<String> r = direct.post("/api/v1/events", "text/plain", "{}");
    assertThat(r.statusCode()).isEqualTo(415);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    String big =
        "["
            + String.join(
                ",",
                java.util.Collections.nCopies(
                    2000, event(device(), System.currentTimeMillis(), "")))
            + "]";
    HttpResponse<String> tooBig = direct.postEvents(big);
    assertThat(tooBig.statusCode()).isEqualTo(413);
    assertThat(tooBig.headers().firstValue("Content-Type")).hasValue("application/problem+json");
  }

  @Test
  void chunkedBodyOverTheLimitIs413() {
    byte[] chunk = ("[" + event(device(), System.currentTimeMillis(), "") + ",").getBytes();
    HttpRequest req =
        HttpRequest.newBuilder(direct.uri("/api/v1/events"))
            .header("Content-Type", "application/json")
            .POST(
                HttpRequest.BodyPublishers.fromPublisher(
                    subscriber ->
                        subscriber.onSubscribe(
                            new Flow.Subscription() {
                              int sent;

                              @Override
                              public void request(long n) {
                                for (long i = 0; i < n && sent < 2000; i++, sent++) {
                                  subscriber.onNext(ByteBuffer.wrap(chunk));
                                }
                                if (sent >= 2000) {
                                  subscriber.onComplete();
                                }
                              }

                              @Override
                              public void cancel() {
                                sent = Integer.MAX_VALUE;
                              }
                            })))
            .build();
    HttpResponse<String> r = TestService.send(req);
    assertThat(r.statusCode()).isEqualTo(413);
  }

  @Test
  void badQueryParametersAre400() {
    assertThat(direct.get("/api/v1/devices/a%20b/events").statusCode()).isEqualTo(400);
    assertThat(direct.get("/api/v1/devices/d/events?limit=0").statusCode()).isEqualTo(400);
    assertThat(direct.get("/api/v1/devices/d/events?limit=100000").statusCode()).isEqualTo(400);
    assertThat(direct.get("/api/v1/devices/d/events?from=2026-01-01T00:00:00").statusCode())
        .isEqualTo(400);
  }
}
