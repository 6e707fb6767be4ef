package io.ambergarden.web.ingest;

import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.PersistRequest;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.BodyFormat;
import io.ambergarden.event.Event;
import io.ambergarden.event.EventJson;
import io.ambergarden.event.EventParser;
import io.ambergarden.event.FieldError;
import io.ambergarden.metrics.AmberMeters;
import io.ambergarden.web.ApiException;
import io.ambergarden.web.HttpBudgets;
import io.ambergarden.web.RequestIds;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;

/**
 * POST /api/v1/events. Validates the whole batch first; then, in kafka mode, answers 202 once the
 * broker acknowledged every event (acks=all), in direct mode once the writer wrote them to
 * Cassandra. Admission and body reading: {@link IngestBodyReader}.
 */
public final class HttpIngestHandler {
  private final AmberConfig config;
  private final EventParser parser;
  private final Vertx vertx;
  private final KafkaHandOff handOff;
  private final AmberMeters meters;
  private final IngestBodyReader body;
  private final BiFunction<RoutingContext, List<Event>, ApiException> deviceCheck;

  /**
   * {@code handOff} is null in direct mode; {@code deviceCheck} refuses a batch with events for
   * devices the caller's credential does not cover (null: allowed).
   */
  public HttpIngestHandler(
      Vertx vertx,
      AmberConfig config,
      EventParser parser,
      KafkaHandOff handOff,
      AmberMeters meters,
      HttpBudgets budgets,
      BiFunction<RoutingContext, List<Event>, ApiException> deviceCheck) {
    this.vertx = vertx;
    this.deviceCheck = deviceCheck;
    this.body = new IngestBodyReader(vertx, config, budgets);
    this.meters = meters;
    this.config = config;
    this.parser = parser;
    this.handOff = handOff;
  }

  /**
   * Runs before the body is read: a wrong content type is refused at once, then the request is
   * admitted against the process-wide budgets (requests and body bytes) and its body read.
   */
  public void admit(RoutingContext ctx) {
    BodyFormat format = format(ctx.request().getHeader("Content-Type"));
    if (format == null) {
      body.refuse(
          ctx,
          new ApiException(
              415,
              "Unsupported Media Type",
              "send application/json (one event or an array) or application/x-ndjson",
              null,
              null));
      return;
    }
    body.read(ctx, bytes -> handle(ctx, format, bytes));
  }

  /** Completes once the events no longer sit in this process on the request's behalf. */
  private Future<?> handle(RoutingContext ctx, BodyFormat format, byte[] bytes) {
    EventParser.BatchResult parsed = parser.parseBatch(bytes, format);
    if (!parsed.ok()) {
      meters.invalid(AmberMeters.Path.HTTP);
      ctx.fail(invalid(parsed.errors()));
      return Future.succeededFuture();
    }
    List<Event> events = parsed.events();
    ApiException refused = deviceCheck.apply(ctx, events);
    if (refused != null) {
      ctx.fail(refused);
      return Future.succeededFuture();
    }
    int count = events.size();
    Future<Void> durable;
    Future<?> held;
    if (handOff != null) {
      KafkaHandOff.Sent sent = produce(events, RequestIds.of(ctx));
      Context here = vertx.getOrCreateContext();
      held = Future.fromCompletionStage(sent.handedOrDropped(), here);
      durable = withinDeadline(Future.fromCompletionStage(sent.acked(), here));
    } else {
      durable = persist(events, ctx);
      held = durable;
    }
    durable.onComplete(
        ar -> {
          if (ar.succeeded()) {
            meters.ingested(AmberMeters.Path.HTTP, count);
            ctx.response()
                .setStatusCode(202)
                .putHeader("Content-Type", "application/json")
                .end(new JsonObject().put("accepted", count).encode());
          } else if (ar.cause() instanceof io.vertx.core.eventbus.ReplyException
              || ar.cause() instanceof ApiException) {
            ctx.fail(ar.cause());
          } else {
            ctx.fail(
                ApiException.unavailable(
                    "events not accepted, nothing was acknowledged: " + ar.cause().getMessage(),
                    config.ingest().retryAfterSeconds()));
          }
        });
    return held;
  }

  /**
   * Hands the events to the producer's own thread; their JSON is made here, and the events
   * themselves are not kept.
   */
  private KafkaHandOff.Sent produce(List<Event> events, String requestId) {
    List<byte[]> keys = new ArrayList<>(events.size());
    List<byte[]> values = new ArrayList<>(events.size());
    for (Event e : events) {
      keys.add(e.deviceId().getBytes(StandardCharsets.UTF_8));
      values.add(EventJson.toJsonBytes(e));
    }
    long deadline = System.nanoTime() + config.ingest().produceTimeout().toNanos();
    return handOff.submit(config.kafka().topic(), keys, values, requestId, deadline);
  }

  /**
   * The answer comes by ingest.produce-timeout: 503 if not every event was acknowledged by then.
   */
  private Future<Void> withinDeadline(Future<Void> acked) {
    Promise<Void> answer = Promise.promise();
    long timer =
        vertx.setTimer(
            config.ingest().produceTimeout().toMillis(),
            id ->
                answer.tryFail(
                    new IllegalStateException(
                        "not every event was acknowledged within ingest.produce-timeout ("
                            + config.ingest().produceTimeout()
                            + ")")));
    acked.onComplete(
        ar -> {
          vertx.cancelTimer(timer);
          if (ar.succeeded()) {
            answer.tryComplete();
          } else {
            answer.tryFail(ar.cause());
          }
        });
    return answer.future();
  }

  private Future<Void> persist(List<Event> events, RoutingContext ctx) {
    return Addresses.WRITER_PERSIST
        .request(
            vertx,
            new PersistRequest(events, PersistRequest.Source.HTTP),
            RequestIds.of(ctx),
            config.writer().requestTimeout().toMillis())
        .mapEmpty();
  }

  static BodyFormat format(String contentType) {
    if (contentType == null) {
      return null;
    }
    String mime = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    return switch (mime) {
      case "application/json" -> BodyFormat.JSON;
      case "application/x-ndjson",
          "application/ndjson",
          "application/jsonl",
          "application/jsonlines" ->
          BodyFormat.NDJSON;
      default -> null;
    };
  }

  static ApiException invalid(List<FieldError> errors) {
    JsonArray list = new JsonArray();
    errors.forEach(
        e ->
            list.add(
                new JsonObject()
                    .put("index", e.index())
                    .put("field", e.field())
                    .put("message", e.message())));
    String first =
        errors.isEmpty() ? "invalid" : errors.get(0).field() + ": " + errors.get(0).message();
    return new ApiException(
        400,
        "Invalid events",
        errors.size() + " error(s); nothing was accepted. First: " + first,
        list,
        null);
  }
}
