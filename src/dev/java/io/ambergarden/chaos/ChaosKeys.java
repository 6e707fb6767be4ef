package io.ambergarden.chaos;

import io.ambergarden.auth.ApiKeys;
import io.ambergarden.auth.Scope;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The run's API key, given to every instance as a static key (auth.static-keys-file), so auth is on
 * from each instance's first second, whatever the nemesis did to Cassandra.
 */
final class ChaosKeys {
  private ChaosKeys() {}

  static Path file(Path baseDir) {
    return baseDir.resolve("chaos-keys.json");
  }

  /** Mints a key with every scope, writes the keys file, and returns the key's text. */
  static String write(Path file) throws IOException {
    ApiKeys.Minted m = ApiKeys.mint();
    JsonArray scopes = new JsonArray(Arrays.stream(Scope.values()).map(Scope::text).toList());
    JsonArray keys =
        new JsonArray()
            .add(
                new JsonObject()
                    .put("key", m.text())
                    .put("name", "chaos run")
                    .put("scopes", scopes));
    Files.createDirectories(file.getParent());
    Files.writeString(file, keys.encode(), StandardCharsets.UTF_8);
    return m.text();
  }
}
