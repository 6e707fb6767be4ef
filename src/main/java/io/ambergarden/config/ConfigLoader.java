package io.ambergarden.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * Layers configuration: conf/amber.properties (packaged defaults, which also define the set of
 * known keys), then the file named by AMBER_CONFIG_FILE, then AMBER_* environment variables, then
 * amber.* system properties.
 */
public final class ConfigLoader {
  public static final String DEFAULTS_RESOURCE = "conf/amber.properties";
  public static final String CONFIG_FILE_ENV = "AMBER_CONFIG_FILE";
  private static final String ENV_PREFIX = "AMBER_";
  private static final String SYS_PREFIX = "amber.";

  /** Environment variables that belong to tooling, not to the service. */
  private static final Set<String> FOREIGN_ENV_PREFIXES = Set.of("AMBER_LOCALRT_", "AMBER_BENCH_");

  /** Redacted in dumps and errors, and refused as -D system properties (visible in ps). */
  static final Set<String> SECRET_KEYS =
      Set.of(
          "cassandra.password",
          "cassandra.schema.password",
          "cassandra.ssl.truststore-password",
          "cassandra.ssl.keystore-password",
          "kafka.sasl.password",
          "kafka.ssl.truststore-password",
          "kafka.ssl.keystore-password",
          "media.s3.secret-key",
          "query.cursor-key");

  private ConfigLoader() {}

  /** Whether a key (without the amber. prefix) holds a secret: never print its value. */
  public static boolean isSecret(String key) {
    return SECRET_KEYS.contains(key);
  }

  /** Loads from the real environment and system properties. */
  public static AmberConfig load() {
    return load(System.getenv(), System.getProperties(), Map.of());
  }

  /** Loads with explicit layers; {@code overrides} win over everything (tests use it). */
  public static AmberConfig load(
      Map<String, String> env, Properties sys, Map<String, String> overrides) {
    return AmberConfig.from(raw(env, sys, overrides));
  }

  public static RawConfig raw(
      Map<String, String> env, Properties sys, Map<String, String> overrides) {
    Map<String, String> values = defaults();
    String file = env.get(CONFIG_FILE_ENV);
    if (file != null && !file.isBlank()) {
      mergeKnown(values, readFile(Path.of(file)), "file " + file);
    }
    Map<String, String> byEnvName = new LinkedHashMap<>();
    values.keySet().forEach(k -> byEnvName.put(envName(k), k));
    Set<String> unknown = new TreeSet<>();
    env.forEach(
        (name, value) -> {
          if (!name.startsWith(ENV_PREFIX)
              || name.equals(CONFIG_FILE_ENV)
              || FOREIGN_ENV_PREFIXES.stream().anyMatch(name::startsWith)) {
            return;
          }
          String key = byEnvName.get(name);
          if (key == null) {
            unknown.add(name);
          } else {
            values.put(key, value);
          }
        });
    if (!unknown.isEmpty()) {
      throw new ConfigException(
          unknown.iterator().next(),
          "unknown environment variable (known: see docs/operations/configuration.md); all unknown: "
              + unknown);
    }
    for (String name : sys.stringPropertyNames()) {
      if (name.startsWith(SYS_PREFIX)) {
        String key = name.substring(SYS_PREFIX.length());
        if (values.containsKey(key)) {
          if (SECRET_KEYS.contains(key) && !sys.getProperty(name).isBlank()) {
            throw new ConfigException(
                key,
                "is a secret: give it as "
                    + envName(key)
                    + " or in the AMBER_CONFIG_FILE file, not as a -D property that any local user"
                    + " can read in the process list");
          }
          values.put(key, sys.getProperty(name));
        }
      }
    }
    mergeKnown(values, overrides, "overrides");
    return new RawConfig(values, SECRET_KEYS);
  }

  /** AMBER_ + upper case key with '.' and '-' as '_'. */
  public static String envName(String key) {
    return ENV_PREFIX + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  /** The packaged defaults, in file order. */
  public static Map<String, String> defaults() {
    try (InputStream in =
        ConfigLoader.class.getClassLoader().getResourceAsStream(DEFAULTS_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(DEFAULTS_RESOURCE + " is missing from the classpath");
      }
      return ordered(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + DEFAULTS_RESOURCE, e);
    }
  }

  private static Map<String, String> readFile(Path path) {
    try {
      return ordered(Files.readString(path, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new ConfigException(CONFIG_FILE_ENV, "cannot read " + path + ": " + e.getMessage());
    }
  }

  private static Map<String, String> ordered(String text) {
    Map<String, String> out = new LinkedHashMap<>();
    Properties p =
        new Properties() {
          @Override
          public synchronized Object put(Object k, Object v) {
            out.put((String) k, (String) v);
            return super.put(k, v);
          }
        };
    try (Reader r = new java.io.StringReader(text)) {
      p.load(r);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  private static void mergeKnown(
      Map<String, String> values, Map<String, String> layer, String from) {
    layer.forEach(
        (k, v) -> {
          if (!values.containsKey(k)) {
            throw new ConfigException(k, "unknown key in " + from);
          }
          values.put(k, v);
        });
  }
}
