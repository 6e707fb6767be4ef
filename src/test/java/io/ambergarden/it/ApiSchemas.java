package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.web.OpenApiSchemas;
import io.vertx.core.Vertx;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;

/**
 * The OpenAPI document resolved once ({@link OpenApiSchemas}, as {@code web.OpenApiContractTest}
 * uses it for the answers it can get without the servers), for checking real answers against the
 * schema documented for their route and status.
 */
final class ApiSchemas {
  private static ApiSchemas shared;
  private final JsonObject doc;

  private ApiSchemas(JsonObject doc) {
    this.doc = doc;
  }

  static ApiSchemas load() {
    Vertx vertx = Vertx.vertx();
    try {
      return new ApiSchemas(OpenApiSchemas.resolvedDocument(vertx).await());
    } finally {
      vertx.close().await();
    }
  }

  /** A component schema by name (for example {@code Event} or {@code Problem}). */
  static synchronized JsonObject component(String name) {
    if (shared == null) {
      shared = load();
    }
    JsonObject schemas = shared.doc.getJsonObject("components").getJsonObject("schemas");
    assertThat(schemas.containsKey(name)).as("schema %s in the document", name).isTrue();
    return schemas.getJsonObject(name);
  }

  /** Fails unless {@code instance} (a decoded JSON value) matches the component schema. */
  static void assertMatches(String name, Object instance, String what) {
    OpenApiSchemas.assertMatches(component(name), instance, what + " (schema " + name + ")");
  }

  /**
   * Fails unless {@code resp} (to a GET of {@code uri}) is a documented answer of its route, with a
   * documented media type, and its body matches that media type's schema.
   */
  void assertDocumented(String uri, HttpResponse<String> resp) {
    String what = "GET " + uri + " -> " + resp.statusCode();
    JsonObject answer = OpenApiSchemas.documentedAnswer(doc, "get", uri, resp.statusCode());
    assertThat(answer).as("%s is documented", what).isNotNull();
    String mediaType = resp.headers().firstValue("Content-Type").orElse("").split(";", 2)[0].trim();
    JsonObject media = answer.getJsonObject("content", new JsonObject()).getJsonObject(mediaType);
    assertThat(media).as("%s: %s is a documented media type", what, mediaType).isNotNull();
    OpenApiSchemas.assertMatches(
        media.getJsonObject("schema"), Json.decodeValue(resp.body()), what);
  }
}
