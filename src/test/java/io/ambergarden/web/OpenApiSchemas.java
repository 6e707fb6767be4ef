package io.ambergarden.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.json.schema.Draft;
import io.vertx.json.schema.JsonSchema;
import io.vertx.json.schema.JsonSchemaOptions;
import io.vertx.json.schema.OutputFormat;
import io.vertx.json.schema.OutputUnit;
import io.vertx.json.schema.Validator;
import io.vertx.openapi.contract.OpenAPIVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The OpenAPI document for tests: read, resolved as vertx-openapi resolves it, a route's documented
 * answer, and a value checked against a schema. {@code OpenApiContractTest} checks the document and
 * the answers it gets without servers; the ITs check real answers with the same pieces.
 */
public final class OpenApiSchemas {
  public static final Path DOCUMENT = Path.of("src/main/resources/openapi.json");

  private OpenApiSchemas() {}

  public static JsonObject document() throws IOException {
    return new JsonObject(Files.readString(DOCUMENT));
  }

  /** The document with every $ref inlined, as vertx-openapi resolves it. */
  public static Future<JsonObject> resolvedDocument(Vertx vertx) {
    JsonObject doc;
    try {
      doc = document();
    } catch (IOException e) {
      return Future.failedFuture(e);
    }
    OpenAPIVersion version = OpenAPIVersion.fromContract(doc);
    return version
        .getRepository(vertx, "app://")
        .compose(repo -> version.resolve(vertx, repo, doc));
  }

  /** The documented response for a concrete request path, or null. */
  public static JsonObject documentedAnswer(JsonObject doc, String method, String uri, int status) {
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

  public static void assertMatches(JsonObject schema, Object instance, String what) {
    OutputUnit result =
        Validator.create(
                JsonSchema.of(schema),
                new JsonSchemaOptions()
                    .setDraft(Draft.DRAFT202012)
                    .setBaseUri("app://")
                    .setOutputFormat(OutputFormat.Basic))
            .validate(instance);
    assertThat(result.getValid())
        .as("%s against the documented schema: %s", what, result.toJson().encode())
        .isTrue();
  }
}
