package io.ambergarden.localrt;

import io.ambergarden.config.AmberConfig;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * {@code <base>/endpoints.properties}: the service config keys that point at the running local
 * servers, written by the run command and read by {@link DevInstance}, so a joining instance needs
 * no flags beyond its HTTP port.
 */
final class DevEndpoints {
  static final String FILE = "endpoints.properties";

  private DevEndpoints() {}

  static void write(LocalRuntimeOptions options, LocalRuntime runtime, AmberConfig config) {
    Properties p = new Properties();
    p.setProperty("cassandra.contact-points", runtime.cassandraContactPoint());
    p.setProperty("cassandra.keyspace", config.cassandra().keyspace());
    p.setProperty("cassandra.local-datacenter", config.cassandra().localDatacenter());
    p.setProperty("kafka.bootstrap-servers", runtime.kafkaBootstrap());
    p.setProperty("kafka.topic", config.kafka().topic());
    p.setProperty("kafka.group-id", config.kafka().groupId());
    // the local S3Proxy's generated credentials; they live under .runtime/ like the store itself
    p.setProperty("media.s3.endpoint", runtime.objectStore().endpoint());
    p.setProperty("media.s3.access-key", runtime.objectStore().accessKey());
    p.setProperty("media.s3.secret-key", runtime.objectStore().secretKey());
    try (Writer w = Files.newBufferedWriter(options.baseDir().resolve(FILE))) {
      p.store(w, "written by mvn -Prun; read by mvn -Pinstance");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The endpoints of the running runtime; fails with what to do when there is none. */
  static Map<String, String> read(LocalRuntimeOptions options) {
    Path file = options.baseDir().resolve(FILE);
    if (!Files.isRegularFile(file)) {
      throw new IllegalStateException(
          "No local runtime found (" + file + " is missing): start it first with mvn -Prun");
    }
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, String> out = new TreeMap<>();
    p.stringPropertyNames().forEach(k -> out.put(k, p.getProperty(k)));
    return out;
  }
}
