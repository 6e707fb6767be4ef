package io.ambergarden.web;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * GET /openapi.json: the hand-written contract (src/main/resources/openapi.json), read and parsed
 * once, so a broken document stops startup instead of failing clients later.
 */
public final class OpenApiDocument {
  public static final String RESOURCE = "openapi.json";

  private final Buffer body;

  private OpenApiDocument(Buffer body) {
    this.body = body;
  }

  /** Reads the document from the classpath; throws when it is missing or not a JSON object. */
  public static OpenApiDocument load() {
    try (InputStream in = OpenApiDocument.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("classpath resource " + RESOURCE + " is missing");
      }
      Buffer body = Buffer.buffer(in.readAllBytes());
      new JsonObject(body);
      return new OpenApiDocument(body);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }

  public void handle(RoutingContext ctx) {
    ctx.response().putHeader("Content-Type", "application/json").end(body);
  }
}
