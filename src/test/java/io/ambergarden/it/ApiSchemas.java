package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import io.vertx.json.schema.Draft;
import io.vertx.json.schema.JsonSchema;
import io.vertx.json.schema.JsonSchemaOptions;
import io.vertx.json.schema.OutputFormat;
import io.vertx.json.schema.OutputUnit;
import io.vertx.json.schema.Validator;
import io.vertx.openapi.contract.OpenAPIVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The OpenAPI document (src/main/resources/openapi.json) with every $ref inlined, as vertx-openapi
 * resolves it, for checking real answers against the schema documented for their route and status
 * (as {@code web.OpenApiContractTest} does for the answers it can get without the servers).
 */
final class ApiSchemas {
  private static ApiSchemas shared;
  private final JsonObject doc;

  private ApiSchemas(JsonObject doc) {
    this.doc = doc;
  }

  static ApiSchemas load() {
    JsonObject raw;
    try {
      raw = new JsonObject(Files.readString(Path.of("src/main/resources/openapi.json")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Vertx vertx = Vertx.vertx();
    try {
      OpenAPIVersion version = OpenAPIVersion.fromContract(raw);
      return new ApiSchemas(
          version
              .getRepository(vertx, "app://")
              .compose(repo -> version.resolve(vertx, repo, raw))
              .await());
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
    assertValid(component(name), instance, what + " against the documented schema " + name);
  }

  private static void assertValid(JsonObject schema, Object instance, String what) {
    OutputUnit result =
        Validator.create(
                JsonSchema.of(schema),
                new JsonSchemaOptions()
                    .setDraft(Draft.DRAFT202012)
                    .setBaseUri("app://")
                    .setOutputFormat(OutputFormat.Basic))
            .validate(instance);
    assertThat(result.getValid()).as("%s: %s", what, result.toJson().encode()).isTrue();
  }

  /**
   * Fails unless {@code resp} (to a GET of {@code uri}) is a documented answer of its route, with a
   * documented media type, and its body matches that media type's schema.
   */
  void assertDocumented(String uri, HttpResponse<String> resp) {
    String what = "GET " + uri + " -> " + resp.statusCode();
    JsonObject answer = documentedAnswer("get", uri, resp.statusCode());
    assertThat(answer).as("%s is documented", what).isNotNull();
    String mediaType = resp.headers().firstValue("Content-Type").orElse("").split(";", 2)[0].trim();
    JsonObject media = answer.getJsonObject("content", new JsonObject()).getJsonObject(mediaType);
    assertThat(media).as("%s: %s is a documented media type", what, mediaType).isNotNull();
    assertValid(
        media.getJsonObject("schema"),
        Json.decodeValue(resp.body()),
        what + " against the documented schema");
  }

  private JsonObject documentedAnswer(String method, String uri, int status) {
    String path = uri.split("\\?", 2)[0];
    JsonObject paths = doc.getJsonObject("paths");
    for (String template : paths.fieldNames()) {
      String regex = "\\Q" + template.replaceAll("\\{[^}]+}", "\\\\E[^/]+\\\\Q") + "\\E";
      if (path.matches(regex)) {
        JsonObject op =
            paths.getJsonObject(template).getJsonObject(method.toLowerCase(Locale.ROOT));
        return op == null
            ? null
            : op.getJsonObject("responses").getJsonObject(Integer.toString(status));
      }
    }
    return null;
  }
}
