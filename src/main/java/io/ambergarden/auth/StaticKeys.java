package io.ambergarden.auth;

import io.ambergarden.config.ConfigException;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * API keys that need no store: read once from {@code auth.static-keys-file} (a mounted Secret), so
 * a pod serves them from its first second, Cassandra or not. Only each secret's SHA-256 is kept,
 * and only in memory. They cannot be revoked through the API: remove them from the Secret and
 * restart.
 *
 * <p>The file is a JSON array of {@code {"key": "amb_...", "name": "...", "scopes": [...],
 * "devices": [...], "ratePerSecond": 0}}; {@code devices} and {@code ratePerSecond} are optional.
 */
public final class StaticKeys {
  private static final String KEY = "auth.static-keys-file";
  private static final StaticKeys NONE = new StaticKeys(Map.of());

  private final Map<String, KeyRecord> byId;

  private StaticKeys(Map<String, KeyRecord> byId) {
    this.byId = Map.copyOf(byId);
  }

  public static StaticKeys none() {
    return NONE;
  }

  /** The keys of {@code file} (empty path: none); a bad file fails with a ConfigException. */
  public static StaticKeys load(String file) {
    if (file.isEmpty()) {
      return NONE;
    }
    String text;
    try {
      text = Files.readString(Path.of(file));
    } catch (IOException e) {
      throw new ConfigException(KEY, "cannot read " + file + ": " + e.getMessage());
    }
    return parse(text);
  }

  /** The keys of a file's text; a bad entry fails with a ConfigException naming its index. */
  public static StaticKeys parse(String json) {
    JsonArray entries;
    try {
      entries = new JsonArray(json);
    } catch (DecodeException | ClassCastException e) {
      throw new ConfigException(KEY, "must hold a JSON array of keys");
    }
    Map<String, KeyRecord> byId = new HashMap<>();
    for (int i = 0; i < entries.size(); i++) {
      KeyRecord k = entry(entries.getValue(i), i);
      if (byId.put(k.id(), k) != null) {
        throw new ConfigException(KEY, "entry " + i + ": key id " + k.id() + " appears twice");
      }
    }
    return new StaticKeys(byId);
  }

  private static KeyRecord entry(Object value, int i) {
    if (!(value instanceof JsonObject o)) {
      throw bad(i, "must be an object");
    }
    // the key text is never part of a message
    Optional<ApiKeys.Presented> key =
        o.getValue("key") instanceof String s ? ApiKeys.parse(s) : Optional.empty();
    if (key.isEmpty()) {
      throw bad(i, "key must be an API key (amb_<16 hex>_<43 base64url>)");
    }
    if (!(o.getValue("name") instanceof String name) || name.isBlank()) {
      throw bad(i, "name must be a non-empty string");
    }
    Set<Scope> scopes = EnumSet.noneOf(Scope.class);
    for (String s : strings(o, "scopes", i)) {
      scopes.add(Scope.parse(s).orElseThrow(() -> bad(i, "unknown scope " + s)));
    }
    if (scopes.isEmpty()) {
      throw bad(i, "scopes must name at least one scope");
    }
    List<String> devices = o.containsKey("devices") ? strings(o, "devices", i) : List.of();
    try {
      DevicePatterns.of(devices);
    } catch (IllegalArgumentException e) {
      throw bad(i, "devices: " + e.getMessage());
    }
    Object rate = o.getValue("ratePerSecond", 0);
    if (!(rate instanceof Integer r) || r < 0) {
      throw bad(i, "ratePerSecond must be an integer >= 0");
    }
    return new KeyRecord(
        key.get().id(),
        name,
        ApiKeys.hash(key.get().secret()),
        scopes,
        devices,
        r,
        null,
        KEY,
        null);
  }

  private static List<String> strings(JsonObject o, String field, int i) {
    if (!(o.getValue(field) instanceof JsonArray a)) {
      throw bad(i, field + " must be an array of strings");
    }
    List<String> out = new ArrayList<>();
    for (Object v : a) {
      if (!(v instanceof String s)) {
        throw bad(i, field + " must be an array of strings");
      }
      out.add(s);
    }
    return out;
  }

  private static ConfigException bad(int i, String problem) {
    return new ConfigException(KEY, "entry " + i + ": " + problem);
  }

  /** The static key with this id, if there is one. */
  public Optional<KeyRecord> find(String id) {
    return Optional.ofNullable(byId.get(id));
  }

  public int size() {
    return byId.size();
  }
}
