package io.ambergarden.web.images;

import io.ambergarden.bus.ImageMeta;
import io.ambergarden.bus.ImageSave;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.media.BlobTransferException;
import io.ambergarden.media.BlobUpload;
import io.ambergarden.media.ImageTags;
import io.ambergarden.media.ObjectKeys;
import io.ambergarden.media.ObjectStore;
import io.ambergarden.media.UploadRules;
import io.ambergarden.web.ApiException;
import io.ambergarden.web.Problems;
import io.ambergarden.web.QueryParams;
import io.ambergarden.web.RequestIds;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.util.UUID;

/**
 * POST /api/v1/devices/{id}/images: the blob first, then the metadata. The headers are judged
 * before a byte of the body is read (413 for a declared length over media.max-bytes, 415, 411,
 * 400); the body then streams to the object store through {@link BlobUpload} (magic bytes checked
 * first, SHA-256 on the way, bounded buffer), and only once the store holds all of it is the
 * metadata written. A failed metadata write leaves the blob for the orphan sweeper. One instance
 * per HTTP verticle, so its counter is confined to one event loop.
 */
final class ImageUploads {
  /**
   * Bytes of a refused body read and thrown away before the connection is closed instead, when its
   * declared length was not accepted; an admitted body (at most media.max-bytes) is read to its
   * end, so the client always gets to read the answer.
   */
  private static final long MAX_DRAIN_BYTES = 1 << 20;

  private final Vertx vertx;
  private final AmberConfig config;
  private final AmberConfig.Media cfg;
  private final HttpClient client;
  private final ObjectStore store;
  private final MeterRegistry registry;

  /** Written on this instance's event loop only; volatile for the tests that read it. */
  private volatile int inFlight;

  ImageUploads(
      Vertx vertx,
      AmberConfig config,
      HttpClient client,
      ObjectStore store,
      MeterRegistry registry) {
    this.vertx = vertx;
    this.config = config;
    this.cfg = config.media();
    this.client = client;
    this.store = store;
    this.registry = registry;
  }

  void handle(RoutingContext ctx) {
    HttpServerRequest req = ctx.request();
    if (ctx.response().closed()) {
      // the client left (while its credential was checked, say): a slot taken now would wait for a
      // body that never comes until the deadline
      return;
    }
    req.pause(); // nothing is read before the headers are judged
    UploadRules.Admission admission;
    String deviceId;
    ImageTags.Parsed tags;
    long createdAt;
    String announced;
    try {
      deviceId = QueryParams.id("id", ctx.pathParam("id"));
      tags = ImageTags.parse(req.getParam("tags"), cfg.maxTags());
      if (!tags.ok()) {
        throw ApiException.invalidParameter("tags", tags.error());
      }
      createdAt = createdAt(req.getParam("createdAt"));
      admission =
          UploadRules.admit(
              req.getHeader("Content-Type"),
              req.getHeader("Content-Length"),
              req.getHeader("Transfer-Encoding"),
              cfg.maxBytes());
      if (!admission.ok()) {
        throw refusal(admission);
      }
      announced = UploadRules.announcedSha256(req.getHeader("Content-Digest"));
      if ("".equals(announced)) {
        throw ApiException.invalidParameter(
            "Content-Digest", "sha-256 must be :base64 of 32 bytes:");
      }
      if (inFlight >= cfg.maxInFlightUploads()) {
        throw ApiException.unavailable(
            "too many uploads in flight", config.ingest().retryAfterSeconds());
      }
    } catch (ApiException e) {
      refuse(ctx, e, false, MAX_DRAIN_BYTES);
      return;
    }
    inFlight++;
    if ("100-continue".equalsIgnoreCase(req.getHeader("Expect"))) {
      ctx.response().writeContinue();
    }
    UUID imageId = UUID.randomUUID();
    long now = System.currentTimeMillis();
    String key = ObjectKeys.key(imageId, now);
    BlobUpload upload =
        BlobUpload.start(client, store, req, admission.contentType(), admission.length(), key);
    // the orphan sweeper judges a blob by its key's upload time: the config keeps the orphan grace
    // above this deadline plus the metadata wait
    long deadline =
        vertx.setTimer(
            cfg.uploadDeadline().toMillis(),
            id ->
                upload.abort(
                    BlobTransferException.Reason.TOO_SLOW, "the upload did not finish in time"));
    long stall = cfg.s3Timeout().toMillis();
    long watchdog =
        vertx.setPeriodic(
            Math.max(100, stall / 4), id -> upload.checkStall(System.currentTimeMillis(), stall));
    String contentType = admission.contentType();
    long declaredLength = admission.length();
    upload
        .future()
        .onComplete(
            ar -> {
              vertx.cancelTimer(deadline);
              vertx.cancelTimer(watchdog);
            })
        .compose(
            stored -> {
              if (announced != null && !announced.equals(stored.sha256())) {
                // no metadata will point at it: remove it now rather than leave it to the sweeper
                store.delete(key);
                return Future.failedFuture(
                    ApiException.invalidParameter(
                        "Content-Digest", "the body's sha-256 is " + stored.sha256()));
              }
              ImageMeta meta =
                  new ImageMeta(
                      imageId,
                      deviceId,
                      contentType,
                      stored.bytes(),
                      stored.sha256(),
                      tags.tags(),
                      createdAt < 0 ? now : createdAt,
                      key,
                      false);
              return ImageSave.ENDPOINT.request(
                  vertx,
                  new ImageSave.Request(meta),
                  RequestIds.of(ctx),
                  AmberConfig.Media.metadataWait(config.cassandra().requestTimeout()).toMillis());
            })
        .onComplete(
            ar -> {
              inFlight--;
              count(ar.succeeded() ? "stored" : outcome(ar.cause()));
              if (ar.succeeded()) {
                registry.counter("amber.media.upload.bytes").increment(ar.result().bytes());
                ctx.response()
                    .setStatusCode(201)
                    .putHeader("Location", "/api/v1/images/" + imageId)
                    .putHeader("Content-Type", "application/json")
                    .end(ImageJson.of(ar.result()).encode());
              } else {
                refuse(ctx, toApi(ar.cause()), true, declaredLength);
              }
            });
  }

  /** Uploads holding a slot of media.max-in-flight-uploads on this instance. */
  int inFlight() {
    return inFlight;
  }

  /** createdAt, when a device uploads an image taken earlier; -1 when absent (now). */
  private long createdAt(String raw) {
    if (raw == null) {
      return -1;
    }
    long now = System.currentTimeMillis();
    long t = QueryParams.time("createdAt", raw, now);
    if (t < now - config.events().retention().toMillis()
        || t > now + config.events().futureSkew().toMillis()) {
      throw ApiException.invalidParameter(
          "createdAt", "must lie within event.retention before now and event.future-skew after");
    }
    return t;
  }

  private ApiException refusal(UploadRules.Admission a) {
    return switch (a.status()) {
      case 413 ->
          new ApiException(413, "Payload Too Large", a.field() + ": " + a.error(), null, null);
      case 415 ->
          new ApiException(415, "Unsupported Media Type", a.field() + ": " + a.error(), null, null);
      case 411 ->
          new ApiException(411, "Length Required", a.field() + ": " + a.error(), null, null);
      default -> ApiException.invalidParameter(a.field(), a.error());
    };
  }

  private ApiException toApi(Throwable e) {
    if (e instanceof ApiException api) {
      return api;
    }
    if (e instanceof BlobTransferException b) {
      return switch (b.reason()) {
        case TYPE_MISMATCH -> ApiException.invalidParameter("Content-Type", b.getMessage());
        case TOO_SLOW -> new ApiException(408, "Request Timeout", b.getMessage(), null, null);
        case CLIENT_GONE -> ApiException.badRequest(b.getMessage());
        default ->
            ApiException.unavailable(
                "the image was not stored, nothing was written: " + b.getMessage(),
                config.ingest().retryAfterSeconds());
      };
    }
    // the metadata write failed or timed out: its outcome may be unknown; the blob stays until
    // the sweeper finds no metadata for it
    return new Problems(config.ingest().retryAfterSeconds()).toApi(e, 503);
  }

  private static String outcome(Throwable e) {
    if (e instanceof BlobTransferException b) {
      return b.reason() == BlobTransferException.Reason.STORE_UNAVAILABLE
              || b.reason() == BlobTransferException.Reason.STORE_REFUSED
          ? "store_failed"
          : "refused";
    }
    return e instanceof ApiException api && api.status() < 500 ? "refused" : "metadata_failed";
  }

  private void count(String outcome) {
    registry.counter("amber.media.uploads", "outcome", outcome).increment();
  }

  /**
   * Answers with the problem, then reads and drops what is left of the body (a bounded amount, for
   * a bounded time) so the client reads the answer instead of a connection reset; past either bound
   * the connection is closed.
   */
  private void refuse(RoutingContext ctx, ApiException e, boolean bodyStarted, long drainLimit) {
    HttpServerRequest req = ctx.request();
    if (req.version() == io.vertx.core.http.HttpVersion.HTTP_2) {
      // one stream of a shared connection: answering resets the stream; never close the connection
      ctx.fail(e);
      return;
    }
    if (!req.isEnded()
        && !bodyStarted
        && "100-continue".equalsIgnoreCase(req.getHeader("Expect"))) {
      // the client waits for 100 Continue before sending the body, which will not come: it should
      // not reuse this connection (if it sends the body anyway, it is dropped below)
      ctx.response().putHeader("Connection", "close");
    }
    ctx.fail(e);
    if (req.isEnded() || ctx.response().closed()) {
      return;
    }
    long[] dropped = {0};
    long timer = vertx.setTimer(10_000, id -> req.connection().close());
    req.handler(
        chunk -> {
          dropped[0] += chunk.length();
          if (dropped[0] > drainLimit) {
            vertx.cancelTimer(timer);
            req.connection().close();
          }
        });
    req.endHandler(v -> vertx.cancelTimer(timer));
    req.exceptionHandler(err -> vertx.cancelTimer(timer));
    req.resume();
  }
}
