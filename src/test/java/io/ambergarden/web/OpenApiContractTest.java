package io.ambergarden.web;

import static io.ambergarden.web.OpenApiSchemas.DOCUMENT;
import static io.ambergarden.web.OpenApiSchemas.assertMatches;
import static io.ambergarden.web.OpenApiSchemas.document;
import static io.ambergarden.web.OpenApiSchemas.documentedAnswer;
import static io.ambergarden.web.OpenApiSchemas.resolvedDocument;
import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.ApiRoutes;
import io.ambergarden.auth.Gatekeeper;
import io.ambergarden.auth.TestJwts;
import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.DeviceCountersQuery;
import io.ambergarden.bus.LocalCodec;
import io.ambergarden.bus.PersistRequest;
import io.ambergarden.bus.PersistResult;
import io.ambergarden.bus.StatusStatsQuery;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import io.ambergarden.event.EventParser;
import io.ambergarden.health.HealthState;
import io.ambergarden.live.LiveConnections;
import io.ambergarden.metrics.AmberMeters;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import io.vertx.openapi.contract.OpenAPIVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * src/main/resources/openapi.json is the HTTP contract: it must be a valid OpenAPI 3.1 document,
 * list exactly the routes HttpVerticle mounts (no more, no fewer), describe every error answer as a
 * problem, and be served as is. The answers the verticle gives without Cassandra or Kafka (health,
 * validation errors, 503s, the live feed's first message) are checked against the schemas the
 * document gives for them.
 */
@ExtendWith(VertxExtension.class)
@Timeout(value = 60, timeUnit = TimeUnit.SECONDS)
class OpenApiContractTest {
  static final Set<String> OPERATION_KEYS =
      Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace");
  static final String PROBLEM = "application/problem+json";
  static final String PROBLEM_SCHEMA = "#/components/schemas/Problem";

  /** Error answers that are deliberately not problems, with the reason in the document. */
  static final Set<String> NON_PROBLEM_ERRORS = Set.of("GET /health/ready 503");

  private static final Pattern VERTX_PARAM = Pattern.compile(":([A-Za-z0-9_]+)");

  private PrometheusMeterRegistry registry;
  private HttpVerticle http;
  private WebClient client;
  private WebSocketClient wsClient;

  /** Every answer below is given to a caller with all scopes, except where the test says. */
  private static final java.security.KeyPair JWT_KEY = TestJwts.rsa();

  private String token;

  @BeforeEach
  void deployHttpVerticle(Vertx vertx, VertxTestContext ctx) throws IOException {
    // direct ingest mode: the verticle starts without Kafka, and nothing here touches Cassandra;
    // callers present JWTs, which need no store either
    Path pem = Files.createTempFile("openapi-jwt-", ".pem");
    Files.writeString(pem, TestJwts.publicPem(JWT_KEY));
    pem.toFile().deleteOnExit();
    AmberConfig config =
        ConfigLoader.load(
            Map.of(),
            new Properties(),
            Map.of(
                "ingest.mode",
                "direct",
                "http.host",
                "127.0.0.1",
                "http.port",
                "0",
                "live.enabled",
                "true",
                "auth.jwt.public-key-file",
                pem.toString(),
                "auth.jwt.issuer",
                TestJwts.ISSUER,
                "auth.jwt.audience",
                TestJwts.AUDIENCE));
    token =
        TestJwts.rs256(
            JWT_KEY.getPrivate(),
            TestJwts.claims(
                "contract-test", "events:write events:read live:read media:write media:read admin"),
            null);
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    EventParser parser = io.ambergarden.EventParsers.create(config, Clock.systemUTC());
    LocalCodec.registerAll(vertx);
    client = WebClient.create(vertx);
    wsClient = vertx.createWebSocketClient();
    Gatekeeper.start(vertx, config, null)
        .compose(
            gate -> {
              http =
                  ApiRoutes.httpVerticle(
                      config,
                      parser,
                      new HealthState(config.ingest().mode()),
                      registry,
                      new Cursor(new byte[32]),
                      new LiveConnections(config.live().maxConnections(), registry),
                      new AmberMeters(registry, config.kafka().topic()),
                      HttpBudgets.of(config, registry),
                      gate);
              return vertx.deployVerticle(http);
            })
        .onComplete(ctx.succeedingThenComplete());
  }

  @AfterEach
  void closeClients() {
    client.close();
    wsClient.close();
    registry.close();
  }

  @Test
  void routerAndDocumentListTheSameRoutes() throws IOException {
    Set<String> mounted = mountedRoutes(http.router().getRoutes());
    Set<String> documented = documentedRoutes(document());
    assertThat(mounted).as("routes read from the router").contains("POST /api/v1/events", "GET /");

    Set<String> undocumented = new TreeSet<>(mounted);
    undocumented.removeAll(documented);
    Set<String> unrouted = new TreeSet<>(documented);
    unrouted.removeAll(mounted);
    assertThat(undocumented.isEmpty() && unrouted.isEmpty())
        .as(
            "router and %s disagree.%n  mounted by HttpVerticle but not in the document: %s%n"
                + "  in the document but not mounted by HttpVerticle: %s",
            DOCUMENT, undocumented, unrouted)
        .isTrue();
  }

  @Test
  void documentIsAValidOpenApi31Document(Vertx vertx, VertxTestContext ctx) throws IOException {
    JsonObject doc = document();
    OpenAPIVersion version = OpenAPIVersion.fromContract(doc);
    assertThat(version).isEqualTo(OpenAPIVersion.V3_1);
    assertThat(doc.getString("openapi")).isEqualTo("3.1.0");
    // the steps OpenAPIContract.from takes to accept a contract: the OpenAPI 3.1 meta-schema, then
    // every $ref.
    // (from() then also refuses media types its request validator cannot handle, such as
    // application/problem+json.)
    version
        .getRepository(vertx, "app://")
        .compose(
            repo ->
                version
                    .validateContract(vertx, repo, doc)
                    .compose(
                        result -> {
                          ctx.verify(
                              () ->
                                  assertThat(result.getValid())
                                      .as(
                                          "OpenAPI 3.1 schema validation of %s: %s",
                                          DOCUMENT, result.toJson().encodePrettily())
                                      .isTrue());
                          return version.resolve(vertx, repo, doc);
                        }))
        .onComplete(
            ctx.succeeding(
                resolved ->
                    ctx.verify(
                        () -> {
                          assertThat(resolved.getJsonObject("paths").fieldNames())
                              .isEqualTo(doc.getJsonObject("paths").fieldNames());
                          ctx.completeNow();
                        })));
  }

  @Test
  void everyErrorAnswerIsAProblemAndEveryOperationDocuments500() throws IOException {
    JsonObject doc = document();
    List<String> wrong = new ArrayList<>();
    forEachOperation(
        doc,
        (route, op) -> {
          JsonObject responses = op.getJsonObject("responses");
          if (!responses.containsKey("500")) {
            wrong.add(route + ": no 500 response");
          }
          for (String status : responses.fieldNames()) {
            boolean error =
                status.startsWith("4") || status.startsWith("5") || status.equals("default");
            if (!error || NON_PROBLEM_ERRORS.contains(route + " " + status)) {
              continue;
            }
            JsonObject content =
                resolve(doc, responses.getJsonObject(status))
                    .getJsonObject("content", new JsonObject());
            JsonObject problem = content.getJsonObject(PROBLEM);
            if (!content.fieldNames().equals(Set.of(PROBLEM))
                || problem == null
                || !PROBLEM_SCHEMA.equals(
                    problem.getJsonObject("schema", new JsonObject()).getString("$ref"))) {
              wrong.add(
                  route
                      + " "
                      + status
                      + ": content must be only "
                      + PROBLEM
                      + " with schema "
                      + PROBLEM_SCHEMA
                      + ", is "
                      + content.fieldNames());
            }
          }
        });
    assertThat(wrong).as("error answers in %s", DOCUMENT).isEmpty();
  }

  @Test
  void openApiJsonIsServedAsTheDocument(VertxTestContext ctx) throws IOException {
    JsonObject expected = document();
    client
        .get(http.actualPort(), "127.0.0.1", "/openapi.json")
        .send()
        .onComplete(
            ctx.succeeding(
                resp ->
                    ctx.verify(
                        () -> {
                          assertThat(resp.statusCode()).isEqualTo(200);
                          assertThat(resp.getHeader("Content-Type")).isEqualTo("application/json");
                          assertThat(resp.bodyAsJsonObject()).isEqualTo(expected);
                          ctx.completeNow();
                        })));
  }

  @Test
  void answersWithoutTheStoresMatchTheDocumentedShapes(Vertx vertx, VertxTestContext ctx) {
    String ndjson = "application/x-ndjson";
    resolvedDocument(vertx)
        .compose(
            doc ->
                answer(doc, "GET", "/health/live", null, null, 200)
                    .compose(r -> answer(doc, "GET", "/health/ready", null, null, 503))
                    .compose(
                        r ->
                            answer(
                                    doc,
                                    "GET",
                                    "/api/v1/devices/M-1/events?limit=0",
                                    null,
                                    null,
                                    400)
                                .map(resp -> firstErrorField(resp, "limit")))
                    .compose(
                        r ->
                            answer(
                                    doc,
                                    "GET",
                                    "/api/v1/devices/M-1/events?from=yesterday",
                                    null,
                                    null,
                                    400)
                                .map(resp -> firstErrorField(resp, "from")))
                    .compose(
                        r ->
                            answer(doc, "GET", "/api/v1/devices/a..b*/latest", null, null, 400)
                                .map(resp -> firstErrorField(resp, "id")))
                    .compose(
                        r ->
                            answer(
                                    doc,
                                    "GET",
                                    "/api/v1/device-types/charger/events?cursor=forged",
                                    null,
                                    null,
                                    400)
                                .map(resp -> firstErrorField(resp, "cursor")))
                    .compose(
                        r ->
                            answer(
                                doc, "GET", "/api/v1/stats/status?day=2026-13-01", null, null, 400))
                    .compose(
                        r ->
                            answer(doc, "GET", "/api/v1/stats/abnormal?minutes=0", null, null, 400))
                    .compose(
                        r ->
                            answer(
                                doc,
                                "GET",
                                "/api/v1/devices/M-1/rollups?from=2026-01-01T00:00:00",
                                null,
                                null,
                                400))
                    // no query verticle is deployed: the answer is the documented 503 with
                    // Retry-After
                    .compose(
                        r -> answer(doc, "GET", "/api/v1/devices/M-1/counters", null, null, 503))
                    .compose(
                        r ->
                            answer(doc, "GET", "/api/v1/live", null, null, 400)
                                .map(resp -> firstErrorField(resp, "Upgrade")))
                    .compose(r -> answer(doc, "POST", "/api/v1/events", "text/plain", "hello", 415))
                    .compose(
                        r ->
                            answer(
                                doc, "POST", "/api/v1/devices/M-1/images", "text/plain", "x", 415))
                    .compose(
                        r ->
                            answer(
                                    doc,
                                    "POST",
                                    "/api/v1/devices/M-1/images?tags=a%20b",
                                    "image/png",
                                    "x",
                                    400)
                                .map(resp -> firstErrorField(resp, "tags")))
                    .compose(
                        r ->
                            answer(doc, "GET", "/api/v1/images/not-a-uuid", null, null, 400)
                                .map(resp -> firstErrorField(resp, "imageId")))
                    .compose(
                        r ->
                            answer(
                                doc,
                                "GET",
                                "/api/v1/images/0b7c3a52-7a51-4c36-9f3e-6f6d1c2b8e41",
                                null,
                                null,
                                503))
                    .compose(
                        r ->
                            answer(
                                    doc,
                                    "POST",
                                    "/api/v1/events",
                                    "application/json",
                                    "[{\"deviceId\":\"M-1\",\"ts\":"
                                        + System.currentTimeMillis()
                                        + "},{\"deviceId\":\"M 2\",\"ts\":1.5}]",
                                    400)
                                .map(
                                    resp -> {
                                      assertThat(
                                              resp.bodyAsJsonObject()
                                                  .getJsonArray("errors")
                                                  .getJsonObject(0)
                                                  .getInteger("index"))
                                          .isEqualTo(1);
                                      return resp;
                                    }))
                    .compose(
                        r ->
                            answer(
                                doc,
                                "POST",
                                "/api/v1/events",
                                ndjson,
                                "{\"deviceId\":\"M-1\"}\n",
                                400))
                    // no writer is deployed: a valid event is not accepted, and the client is told
                    // to retry
                    .compose(
                        r ->
                            answer(
                                doc,
                                "POST",
                                "/api/v1/events",
                                ndjson,
                                "{\"deviceId\":\"M-1\",\"ts\":"
                                    + System.currentTimeMillis()
                                    + "}\n",
                                503))
                    // a stand-in writer that stores nothing: the 202 the HTTP layer then gives
                    .compose(
                        r ->
                            vertx
                                .eventBus()
                                .<PersistRequest>consumer(
                                    Addresses.WRITER_PERSIST.address(),
                                    msg -> msg.reply(new PersistResult(msg.body().events().size())))
                                .completion())
                    .compose(
                        r ->
                            answer(
                                    doc,
                                    "POST",
                                    "/api/v1/events",
                                    "application/json; charset=utf-8",
                                    "{\"deviceId\":\"M-1\",\"ts\":\""
                                        + OffsetDateTime.now(ZoneOffset.ofHours(8))
                                        + "\",\"temperature\":36.5}",
                                    202)
                                .map(
                                    resp -> {
                                      assertThat(resp.bodyAsJsonObject().getInteger("accepted"))
                                          .isEqualTo(1);
                                      return resp;
                                    })))
        .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void counterAnswersMatchTheDocumentedShapesWithAndWithoutProgress(
      Vertx vertx, VertxTestContext ctx) {
    long exactThrough = 1_796_302_800_000L;
    long countedThrough = 1_796_306_385_000L;
    // stand-ins for the stats verticle: device M-1 and ranges have progress, the rest none yet
    vertx
        .eventBus()
        .<DeviceCountersQuery.Request>consumer(
            DeviceCountersQuery.ENDPOINT.address(),
            m ->
                m.reply(
                    m.body().deviceId().equals("M-1")
                        ? new DeviceCountersQuery.Reply(
                            "M-1", 5, Map.of("normal", 4L), exactThrough, countedThrough)
                        : new DeviceCountersQuery.Reply(
                            m.body().deviceId(), 0, Map.of(), null, null)));
    vertx
        .eventBus()
        .<StatusStatsQuery.Request>consumer(
            StatusStatsQuery.ENDPOINT.address(),
            m -> {
              StatusStatsQuery.Request q = m.body();
              List<StatusStatsQuery.Day> days = new ArrayList<>();
              q.from()
                  .datesUntil(q.to())
                  .forEach(
                      d ->
                          days.add(
                              new StatusStatsQuery.Day(
                                  d,
                                  new StatusStatsQuery.Counts(
                                      3, Map.of("200", 3L), Map.of("normal", 3L), Map.of()),
                                  d.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli())));
              boolean range = q.to().isAfter(q.from().plusDays(1));
              m.reply(new StatusStatsQuery.Reply(16, days, range ? countedThrough : null));
            });
    java.time.LocalDate today = java.time.LocalDate.now(ZoneOffset.UTC);
    resolvedDocument(vertx)
        .compose(
            doc ->
                answer(doc, "GET", "/api/v1/devices/M-1/counters", null, null, 200)
                    .map(
                        resp -> {
                          JsonObject body = resp.bodyAsJsonObject();
                          assertThat(body.getLong("exactThrough")).isEqualTo(exactThrough);
                          assertThat(body.getLong("countedThrough")).isEqualTo(countedThrough);
                          return resp;
                        })
                    .compose(
                        r -> answer(doc, "GET", "/api/v1/devices/N-1/counters", null, null, 200))
                    .map(
                        resp -> {
                          JsonObject body = resp.bodyAsJsonObject();
                          assertThat(body.containsKey("exactThrough")).isTrue();
                          assertThat(body.getValue("exactThrough")).isNull();
                          assertThat(body.getValue("countedThrough")).isNull();
                          return resp;
                        })
                    .compose(
                        r ->
                            answer(
                                doc, "GET", "/api/v1/stats/status?day=" + today, null, null, 200))
                    .map(
                        resp -> {
                          JsonObject body = resp.bodyAsJsonObject();
                          assertThat(body.getString("day")).isEqualTo(today.toString());
                          assertThat(body.getLong("exactThrough"))
                              .isEqualTo(
                                  today.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli());
                          assertThat(body.containsKey("countedThrough")).isTrue();
                          assertThat(body.getValue("countedThrough")).isNull();
                          return resp;
                        })
                    .compose(
                        r ->
                            answer(
                                doc,
                                "GET",
                                "/api/v1/stats/status?from=" + today.minusDays(1),
                                null,
                                null,
                                200))
                    .map(
                        resp -> {
                          JsonObject body = resp.bodyAsJsonObject();
                          assertThat(body.getLong("countedThrough")).isEqualTo(countedThrough);
                          assertThat(
                                  body.getJsonArray("days")
                                      .getJsonObject(1)
                                      .getLong("exactThrough"))
                              .isEqualTo(
                                  today.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli());
                          assertThat(body.getJsonObject("totals").containsKey("exactThrough"))
                              .isFalse();
                          return resp;
                        }))
        .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void accessAnswersMatchTheDocumentedShapes(Vertx vertx, VertxTestContext ctx) {
    String readOnly =
        TestJwts.rs256(
            JWT_KEY.getPrivate(),
            TestJwts.claims("reader", "events:read").put("devices", "R-1"),
            null);
    String meterM =
        TestJwts.rs256(
            JWT_KEY.getPrivate(),
            TestJwts.claims("meter", "events:write events:read")
                .put("devices", new io.vertx.core.json.JsonArray().add("M-*")),
            null);
    long now = System.currentTimeMillis();
    resolvedDocument(vertx)
        .compose(
            doc ->
                answer(doc, "GET", "/api/v1/devices/M-1/latest", null, null, 401, null)
                    .map(
                        resp -> {
                          assertThat(resp.getHeader("WWW-Authenticate")).startsWith("Bearer");
                          return resp;
                        })
                    .compose(
                        r ->
                            answer(
                                doc,
                                "GET",
                                "/api/v1/devices/M-1/latest",
                                null,
                                null,
                                401,
                                "not-a-token"))
                    .compose(r -> answer(doc, "GET", "/metrics", null, null, 401, null))
                    .compose(
                        r ->
                            answer(
                                doc,
                                "POST",
                                "/api/v1/events",
                                "application/json",
                                "{}",
                                403,
                                readOnly))
                    .compose(r -> answer(doc, "GET", "/metrics", null, null, 403, readOnly))
                    .compose(
                        r ->
                            answer(
                                doc, "GET", "/api/v1/devices/N-1/latest", null, null, 403, meterM))
                    .compose(
                        r -> answer(doc, "GET", "/api/v1/stats/abnormal", null, null, 403, meterM))
                    .compose(
                        r ->
                            answer(
                                    doc,
                                    "POST",
                                    "/api/v1/events",
                                    "application/json",
                                    "[{\"deviceId\":\"M-1\",\"ts\":"
                                        + now
                                        + "},{\"deviceId\":\"N-2\",\"ts\":"
                                        + now
                                        + "}]",
                                    403,
                                    meterM)
                                .map(
                                    resp -> {
                                      assertThat(
                                              resp.bodyAsJsonObject()
                                                  .getJsonArray("errors")
                                                  .getJsonObject(0)
                                                  .getInteger("index"))
                                          .isEqualTo(1);
                                      return resp;
                                    }))
                    // no Cassandra here: keys and tickets cannot be stored, and the answer says so
                    .compose(r -> answer(doc, "POST", "/api/v1/live/tickets", null, null, 503))
                    .compose(r -> answer(doc, "GET", "/api/v1/admin/keys?limit=0", null, null, 400))
                    .compose(
                        r ->
                            answer(
                                    doc,
                                    "POST",
                                    "/api/v1/admin/keys",
                                    "application/json",
                                    "{\"name\":\"x\",\"scopes\":[\"events:wirte\"]}",
                                    400)
                                .map(resp -> firstErrorField(resp, "scopes")))
                    .compose(
                        r ->
                            answer(doc, "DELETE", "/api/v1/admin/keys/not-hex", null, null, 400)
                                .map(resp -> firstErrorField(resp, "keyId"))))
        .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void everyOperationDocumentsTheScopeItsRouteNeeds() throws IOException {
    Map<String, String> rules = io.ambergarden.auth.RouteRules.table();
    List<String> wrong = new ArrayList<>();
    forEachOperation(
        document(),
        (route, op) -> {
          io.vertx.core.json.JsonArray security = op.getJsonArray("security");
          String[] parts = route.split(" ", 2);
          io.ambergarden.auth.RouteRules.Rule rule =
              io.ambergarden.auth.RouteRules.of(parts[0], parts[1].replace("{id}", "M-1"));
          if (security == null) {
            wrong.add(route + ": no security requirement");
          } else if (rule.open()) {
            if (!security.isEmpty()) {
              wrong.add(route + ": open, but the document asks for " + security);
            }
          } else {
            for (Object req : security) {
              for (String scheme : ((JsonObject) req).fieldNames()) {
                if (!((JsonObject) req).getJsonArray(scheme).contains(rule.scope().text())) {
                  wrong.add(route + ": " + scheme + " does not list " + rule.scope().text());
                }
              }
            }
            if (security.isEmpty()) {
              wrong.add(route + ": needs " + rule.scope().text() + " but is documented as open");
            }
          }
        });
    assertThat(wrong).as("security of the operations in %s", DOCUMENT).isEmpty();
    assertThat(rules).containsEntry("GET /metrics", "admin");
  }

  @Test
  void liveFeedGreetsWithADocumentedMessage(Vertx vertx, VertxTestContext ctx) {
    resolvedDocument(vertx)
        .compose(
            doc ->
                wsClient
                    .connect(
                        new io.vertx.core.http.WebSocketConnectOptions()
                            .setPort(http.actualPort())
                            .setHost("127.0.0.1")
                            .setURI("/api/v1/live?codes=500")
                            .addHeader("Authorization", "Bearer " + token))
                    .compose(
                        ws -> {
                          io.vertx.core.Promise<String> first = io.vertx.core.Promise.promise();
                          ws.textMessageHandler(first::tryComplete);
                          return first
                              .future()
                              .map(
                                  text -> {
                                    JsonObject schema =
                                        doc.getJsonObject("components")
                                            .getJsonObject("schemas")
                                            .getJsonObject("LiveMessage");
                                    Object message = Json.decodeValue(text);
                                    assertMatches(
                                        schema, message, "the live feed's first message " + text);
                                    assertThat(((JsonObject) message).getString("type"))
                                        .isEqualTo("live");
                                    return ws;
                                  });
                        })
                    .compose(ws -> ws.close()))
        .onComplete(ctx.succeedingThenComplete());
  }

  /**
   * Sends the request, checks the status, every header the document lists for that answer, and the
   * body against the documented schema of its media type. {@code uri} is matched to its documented
   * path by the router's own rules.
   */
  private Future<HttpResponse<Buffer>> answer(
      JsonObject doc, String method, String uri, String contentType, String body, int status) {
    return answer(doc, method, uri, contentType, body, status, token);
  }

  private Future<HttpResponse<Buffer>> answer(
      JsonObject doc,
      String method,
      String uri,
      String contentType,
      String body,
      int status,
      String bearer) {
    var request = client.request(HttpMethod.valueOf(method), http.actualPort(), "127.0.0.1", uri);
    if (bearer != null) {
      request.putHeader("Authorization", "Bearer " + bearer);
    }
    if (contentType != null) {
      request.putHeader("Content-Type", contentType);
    }
    return (body == null ? request.send() : request.sendBuffer(Buffer.buffer(body)))
        .map(
            resp -> {
              String what =
                  method + " " + uri + " -> " + resp.statusCode() + " " + resp.bodyAsString();
              assertThat(resp.statusCode()).as(what).isEqualTo(status);
              JsonObject documented = documentedAnswer(doc, method, uri, status);
              assertThat(documented).as("the document's answer for %s", what).isNotNull();
              for (String header :
                  documented.getJsonObject("headers", new JsonObject()).fieldNames()) {
                if (header.startsWith("__")) {
                  continue; // the resolver's bookkeeping, such as __absolute_uri__
                }
                assertThat(resp.getHeader(header)).as("header %s of %s", header, what).isNotNull();
              }
              String mediaType = resp.getHeader("Content-Type").split(";", 2)[0].trim();
              JsonObject media =
                  documented.getJsonObject("content", new JsonObject()).getJsonObject(mediaType);
              assertThat(media)
                  .as("%s is a documented media type of %s", mediaType, what)
                  .isNotNull();
              assertMatches(media.getJsonObject("schema"), Json.decodeValue(resp.body()), what);
              return resp;
            });
  }

  private static HttpResponse<Buffer> firstErrorField(HttpResponse<Buffer> resp, String field) {
    assertThat(resp.bodyAsJsonObject().getJsonArray("errors").getJsonObject(0).getString("field"))
        .isEqualTo(field);
    return resp;
  }

  /**
   * "METHOD /path" of every route with a path; Vert.x {@code :id} becomes {@code {id}}, the static
   * catch-all GET /.
   */
  static Set<String> mountedRoutes(List<Route> routes) {
    Set<String> out = new TreeSet<>();
    for (Route r : routes) {
      if (r.getPath() == null) {
        // request ids and the failure handler have no path; a pure regex route could not be matched
        // to the document
        assertThat(r.isRegexPath())
            .as("a regex route cannot be matched to the document: %s", r)
            .isFalse();
        continue;
      }
      String path = r.getPath();
      if (!r.isExactPath()) {
        assertThat(path)
            .as("only the dashboard's static catch-all /* may be a prefix route")
            .isEqualTo("/");
      }
      assertThat(r.methods()).as("route %s must name its methods", path).isNotEmpty();
      String openApiPath =
          VERTX_PARAM
              .matcher(path)
              .replaceAll(m -> "{" + Matcher.quoteReplacement(m.group(1)) + "}");
      for (HttpMethod m : r.methods()) {
        out.add(m.name() + " " + openApiPath);
      }
    }
    return out;
  }

  static Set<String> documentedRoutes(JsonObject doc) {
    Set<String> out = new TreeSet<>();
    forEachOperation(doc, (route, op) -> out.add(route));
    return out;
  }

  static void forEachOperation(
      JsonObject doc, java.util.function.BiConsumer<String, JsonObject> action) {
    JsonObject paths = doc.getJsonObject("paths");
    for (String path : paths.fieldNames()) {
      JsonObject item = paths.getJsonObject(path);
      for (String key : item.fieldNames()) {
        if (OPERATION_KEYS.contains(key)) {
          action.accept(key.toUpperCase(Locale.ROOT) + " " + path, item.getJsonObject(key));
        }
      }
    }
  }

  /** Follows a local {@code $ref} such as #/components/responses/BadRequest. */
  static JsonObject resolve(JsonObject doc, JsonObject maybeRef) {
    String ref = maybeRef.getString("$ref");
    if (ref == null) {
      return maybeRef;
    }
    assertThat(ref).as("only local references").startsWith("#/");
    JsonObject target = doc;
    for (String part : ref.substring(2).split("/")) {
      target = target.getJsonObject(part);
      assertThat(target).as("target of %s", ref).isNotNull();
    }
    return resolve(doc, target);
  }
}
