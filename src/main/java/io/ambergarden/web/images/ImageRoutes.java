package io.ambergarden.web.images;

import io.ambergarden.bus.Endpoint;
import io.ambergarden.bus.ImageDelete;
import io.ambergarden.bus.ImageGet;
import io.ambergarden.bus.ImageListQuery;
import io.ambergarden.bus.ImageMeta;
import io.ambergarden.bus.PagePosition;
import io.ambergarden.bus.ShareCreate;
import io.ambergarden.bus.ShareGet;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.media.BlobDownload;
import io.ambergarden.media.BlobTransferException;
import io.ambergarden.media.ImageTags;
import io.ambergarden.media.ObjectStore;
import io.ambergarden.web.AccessHandler;
import io.ambergarden.web.ApiException;
import io.ambergarden.web.Cursor;
import io.ambergarden.web.EdgeRoutes;
import io.ambergarden.web.QueryParams;
import io.ambergarden.web.RequestIds;
import io.ambergarden.web.Responses;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device-image endpoints. Scopes (media:read, media:write) are checked in front of every route
 * by {@link AccessHandler}; a share link needs no credentials: its token is the credential.
 */
public final class ImageRoutes implements EdgeRoutes {
  private static final Logger LOG = LoggerFactory.getLogger(ImageRoutes.class);
  private static final java.util.regex.Pattern UUID_TEXT =
      java.util.regex.Pattern.compile(
          "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

  private final Vertx vertx;
  private final AmberConfig config;
  private final AmberConfig.Media cfg;
  private final Cursor cursor;
  private final HttpClient client;
  private final ObjectStore store;
  private final ImageUploads uploads;

  public ImageRoutes(Vertx vertx, AmberConfig config, Cursor cursor, MeterRegistry registry) {
    this.vertx = vertx;
    this.config = config;
    this.cfg = config.media();
    this.cursor = cursor;
    int connections = cfg.maxInFlightUploads() + 32;
    this.client =
        vertx.createHttpClient(
            new HttpClientOptions()
                .setConnectTimeout((int) cfg.s3Timeout().toMillis())
                .setKeepAliveTimeout(30),
            new PoolOptions().setHttp1MaxSize(connections).setMaxWaitQueueSize(connections * 4));
    this.store = new ObjectStore(vertx, cfg);
    this.uploads = new ImageUploads(vertx, config, client, store, registry);
  }

  @Override
  public void mount(Router router) {
    String deviceImages = "/api/v1/devices/:id/images";
    String image = "/api/v1/images/:imageId";
    router.post(deviceImages).handler(this::enabled).handler(uploads::handle);
    router.get(deviceImages).handler(this::enabled).handler(this::byDevice);
    router.get("/api/v1/tags/:tag/images").handler(this::enabled).handler(this::byTag);

    router.get(image).handler(this::enabled).handler(this::metadata);
    router.get(image + "/content").handler(this::enabled).handler(this::bytes);
    router.delete(image).handler(this::enabled).handler(this::delete);
    // two routes: Vert.x wants the body handler first on a route, the enabled check comes before it
    router.post(image + "/shares").handler(this::enabled);
    router
        .post(image + "/shares")
        .handler(BodyHandler.create(false).setBodyLimit(4096))
        .handler(this::share);
    router.get("/api/v1/shares/:shareId").handler(this::enabled).handler(this::shared);
  }

  @Override
  public Future<Void> stop() {
    store.close();
    return client.close();
  }

  public int uploadsInFlight() {
    return uploads.inFlight();
  }

  private void enabled(RoutingContext ctx) {
    if (!cfg.enabled()) {
      throw ApiException.unavailable(
          "device images are turned off on this instance (media.enabled)",
          config.ingest().retryAfterSeconds());
    }
    ctx.next();
  }

  private void byDevice(RoutingContext ctx) {
    list(ctx, ImageListQuery.Scope.DEVICE, QueryParams.id("id", ctx.pathParam("id")));
  }

  private void byTag(RoutingContext ctx) {
    String tag = ImageTags.normalize(ctx.pathParam("tag"));
    if (tag == null) {
      throw ApiException.invalidParameter("tag", "must be 1-64 letters, digits, '.', '_' or '-'");
    }
    list(ctx, ImageListQuery.Scope.TAG, tag);
  }

  private void list(RoutingContext ctx, ImageListQuery.Scope scope, String key) {
    String rawFrom = ctx.request().getParam("from");
    String rawTo = ctx.request().getParam("to");
    long from = Math.max(0, QueryParams.time("from", rawFrom, 0));
    long to =
        QueryParams.time(
            "to", rawTo, System.currentTimeMillis() + config.events().futureSkew().toMillis() + 1);
    if (from >= to) {
      throw ApiException.invalidParameter("from", "must be before to");
    }
    int limit =
        QueryParams.limit(
            ctx.request().getParam("limit"),
            Math.min(50, config.query().maxLimit()),
            config.query().maxLimit());
    String query =
        String.join("|", "images", scope.name(), key, str(rawFrom), str(rawTo), "" + limit);
    PagePosition position = null;
    String given = ctx.request().getParam("cursor");
    if (given != null) {
      position =
          cursor
              .decode(query, given)
              .orElseThrow(
                  () ->
                      ApiException.invalidParameter(
                          "cursor",
                          "is not a cursor issued for this query (repeat the same parameters)"));
    }
    ask(
            ctx,
            ImageListQuery.ENDPOINT,
            new ImageListQuery.Request(scope, key, from, to, limit, position))
        .onSuccess(
            (ImageListQuery.Page page) -> {
              JsonArray items = new JsonArray();
              page.items().forEach(m -> items.add(ImageJson.of(m)));
              Responses.json(
                  ctx,
                  200,
                  new JsonObject()
                      .put("items", items)
                      .put("next", page.next() == null ? null : cursor.encode(query, page.next())));
            });
  }

  private void metadata(RoutingContext ctx) {
    ask(ctx, ImageGet.ENDPOINT, new ImageGet.Request(imageId(ctx)))
        .onSuccess((ImageMeta m) -> Responses.json(ctx, 200, ImageJson.of(m)));
  }

  private void bytes(RoutingContext ctx) {
    ask(ctx, ImageGet.ENDPOINT, new ImageGet.Request(imageId(ctx)))
        .onSuccess((ImageMeta m) -> serve(ctx, m, "private, no-cache"));
  }

  private void delete(RoutingContext ctx) {
    ask(ctx, ImageDelete.ENDPOINT, new ImageDelete.Request(imageId(ctx)))
        .onSuccess(r -> ctx.response().setStatusCode(204).end());
  }

  private void share(RoutingContext ctx) {
    UUID imageId = imageId(ctx);
    JsonObject body;
    try {
      body = ctx.body().asJsonObject();
    } catch (RuntimeException e) {
      body = null;
    }
    Object ttl = body == null ? null : body.getValue("ttlSeconds");
    long min = cfg.shareMinTtl().toSeconds();
    long max = cfg.shareMaxTtl().toSeconds();
    if (!(ttl instanceof Integer || ttl instanceof Long)
        || ((Number) ttl).longValue() < min
        || ((Number) ttl).longValue() > max) {
      throw ApiException.invalidParameter(
          "ttlSeconds", "must be an integer in " + min + ".." + max + " (seconds)");
    }
    int seconds = ((Number) ttl).intValue();
    ask(ctx, ShareCreate.ENDPOINT, new ShareCreate.Request(imageId, seconds))
        .onSuccess(
            (ShareCreate.Reply r) -> {
              String path = "/api/v1/shares/" + r.shareId();
              ctx.response().putHeader("Location", path);
              Responses.json(
                  ctx,
                  201,
                  new JsonObject()
                      .put("shareId", r.shareId())
                      .put("url", cfg.publicBaseUrl() + path)
                      .put("expiresAt", r.expiresAt()));
            });
  }

  private void shared(RoutingContext ctx) {
    ask(ctx, ShareGet.ENDPOINT, new ShareGet.Request(ctx.pathParam("shareId")))
        .onSuccess((ImageMeta m) -> serve(ctx, m, "private, no-store"));
  }

  /** The image's bytes, streamed from the store; 304 when the client holds them already. */
  private void serve(RoutingContext ctx, ImageMeta m, String cacheControl) {
    String etag = BlobDownload.etag(m);
    if (etag.equals(ctx.request().getHeader("If-None-Match"))) {
      ctx.response().setStatusCode(304).putHeader("ETag", etag).end();
      return;
    }
    BlobDownload.send(
            vertx, client, store, m, ctx.response(), cacheControl, cfg.s3Timeout().toMillis())
        .onFailure(
            e -> {
              if (ctx.response().headWritten()) {
                return; // the pipe reset the response
              }
              if (e instanceof BlobTransferException b
                  && b.reason() == BlobTransferException.Reason.MISSING) {
                LOG.error(
                    "image {} has metadata but its blob {} is missing", m.imageId(), m.objectKey());
                ctx.fail(ApiException.internal());
              } else {
                ctx.fail(
                    ApiException.unavailable(
                        "the object store cannot serve the image now: " + e.getMessage(),
                        config.ingest().retryAfterSeconds()));
              }
            });
  }

  private static UUID imageId(RoutingContext ctx) {
    String raw = ctx.pathParam("imageId");
    if (raw == null || !UUID_TEXT.matcher(raw).matches()) {
      throw ApiException.invalidParameter("imageId", "must be an image id (a UUID)");
    }
    return UUID.fromString(raw);
  }

  /** A typed request; a failure becomes the problem answer (404, 503...) through the router. */
  private <Q, R> Future<R> ask(RoutingContext ctx, Endpoint<Q, R> endpoint, Q request) {
    return endpoint
        .request(
            vertx, request, RequestIds.of(ctx), config.cassandra().requestTimeout().toMillis() * 3)
        .onFailure(ctx::fail);
  }

  private static String str(String s) {
    return s == null ? "" : s;
  }
}
