package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.json.schema.Draft;
import io.vertx.json.schema.JsonSchema;
import io.vertx.json.schema.JsonSchemaOptions;
import io.vertx.json.schema.OutputFormat;
import io.vertx.json.schema.OutputUnit;
import io.vertx.json.schema.Validator;
import io.vertx.openapi.contract.OpenAPIVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The schemas of src/main/resources/openapi.json, with every $ref inlined as vertx-openapi resolves
 * them, to check the answers of the real service against the contract.
 */
final class ApiSchemas {
  private static JsonObject resolved;

  private ApiSchemas() {}

  /** A component schema by name (for example {@code Event} or {@code Problem}). */
  static synchronized JsonObject component(String name) {
    if (resolved == null) {
      resolved = resolve();
    }
    JsonObject schema = resolved.getJsonObject("components").getJsonObject("schemas");
    assertThat(schema.containsKey(name)).as("schema %s in the document", name).isTrue();
    return schema.getJsonObject(name);
  }

  /** Fails unless {@code instance} matches the component schema {@code name}. */
  static void assertMatches(String name, Object instance, String what) {
    OutputUnit result =
        Validator.create(
                JsonSchema.of(component(name)),
                new JsonSchemaOptions()
                    .setDraft(Draft.DRAFT202012)
                    .setBaseUri("app://")
                    .setOutputFormat(OutputFormat.Basic))
            .validate(instance);
    assertThat(result.getValid())
        .as("%s against the documented schema %s: %s", what, name, result.toJson().encode())
        .isTrue();
  }

  private static JsonObject resolve() {
    Vertx vertx = Vertx.vertx();
    try {
      JsonObject doc = new JsonObject(Files.readString(Path.of("src/main/resources/openapi.json")));
      OpenAPIVersion version = OpenAPIVersion.fromContract(doc);
      return version
          .getRepository(vertx, "app://")
          .compose(repo -> version.resolve(vertx, repo, doc))
          .await(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("the OpenAPI document did not resolve", e);
    } finally {
      vertx.close();
    }
  }
}
