package io.ambergarden.web;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.StaticHandler;

/**
 * The console on the catch-all GET /*, after every API route: the pages and scripts of the {@code
 * webroot} resource folder, the WebJar files they load ({@link VendorFiles}), and the API reference
 * at /docs, which renders /openapi.json. Every answer carries {@link ConsoleHeaders}.
 */
public final class ConsoleRoutes {
  static final String WEBROOT = "webroot";
  static final String DOCS_PAGE = WEBROOT + "/docs.html";

  private ConsoleRoutes() {}

  public static void mount(Router router) {
    router
        .get("/*")
        .handler(ConsoleHeaders::apply)
        .handler(VendorFiles.load())
        .handler(ConsoleRoutes::docs)
        .handler(StaticHandler.create(WEBROOT).setCachingEnabled(false));
  }

  /** /docs and /docs/: the API reference page. */
  private static void docs(RoutingContext ctx) {
    String path = ctx.normalizedPath();
    if (!path.equals("/docs") && !path.equals("/docs/")) {
      ctx.next();
      return;
    }
    ctx.response()
        .putHeader(HttpHeaders.CONTENT_TYPE, "text/html; charset=utf-8")
        .putHeader(HttpHeaders.CACHE_CONTROL, "no-cache")
        .sendFile(DOCS_PAGE)
        .onFailure(ctx::fail);
  }
}
