package io.ambergarden.localrt;

import io.ambergarden.config.EnumNames;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * Where and how the local Cassandra node and Kafka broker run.
 *
 * <p>Every value can be overridden by a system property or an environment variable; a system
 * property wins over the environment variable, which wins over the value in the record the override
 * is applied to ({@link #overriddenFromEnvironment()}):
 *
 * <table>
 *   <caption>Overrides</caption>
 *   <tr><th>System property</th><th>Environment variable</th><th>Default</th></tr>
 *   <tr><td>amber.localrt.dir</td><td>AMBER_LOCALRT_DIR</td><td>./.runtime</td></tr>
 *   <tr><td>amber.localrt.cql.port</td><td>AMBER_LOCALRT_CQL_PORT</td><td>9042</td></tr>
 *   <tr><td>amber.localrt.storage.port</td><td>AMBER_LOCALRT_STORAGE_PORT</td><td>7000</td></tr>
 *   <tr><td>amber.localrt.jmx.port</td><td>AMBER_LOCALRT_JMX_PORT</td><td>7199</td></tr>
 *   <tr><td>amber.localrt.cassandra.heap</td><td>AMBER_LOCALRT_CASSANDRA_HEAP</td><td>1G</td></tr>
 *   <tr><td>amber.localrt.cassandra.memtable</td><td>AMBER_LOCALRT_CASSANDRA_MEMTABLE</td><td>64MiB (memtable_heap_space and memtable_offheap_space); 256MiB in the benchmarks</td></tr>
 *   <tr><td>amber.localrt.cassandra.memtable.kind</td><td>AMBER_LOCALRT_CASSANDRA_MEMTABLE_KIND</td><td>skiplist (or trie); trie in the benchmarks</td></tr>
 *   <tr><td>amber.localrt.cassandra.memtable.allocation</td><td>AMBER_LOCALRT_CASSANDRA_MEMTABLE_ALLOCATION</td><td>heap_buffers (or offheap_buffers, offheap_objects); offheap_objects in the benchmarks</td></tr>
 *   <tr><td>amber.localrt.cassandra.request-threads</td><td>AMBER_LOCALRT_CASSANDRA_REQUEST_THREADS</td><td>0: Cassandra's defaults (concurrent_reads and concurrent_writes 32, native_transport_max_threads 128); N sets all four request pools, counter writes included, to N</td></tr>
 *   <tr><td>amber.localrt.cassandra.version</td><td>AMBER_LOCALRT_CASSANDRA_VERSION</td><td>5.0.6</td></tr>
 *   <tr><td>amber.localrt.kafka.port</td><td>AMBER_LOCALRT_KAFKA_PORT</td><td>9092</td></tr>
 *   <tr><td>amber.localrt.kafka.controller.port</td><td>AMBER_LOCALRT_KAFKA_CONTROLLER_PORT</td><td>9093</td></tr>
 *   <tr><td>amber.localrt.kafka.heap</td><td>AMBER_LOCALRT_KAFKA_HEAP</td><td>512M</td></tr>
 *   <tr><td>amber.localrt.kafka.version</td><td>AMBER_LOCALRT_KAFKA_VERSION</td><td>4.1.2</td></tr>
 *   <tr><td>amber.localrt.startup.timeout</td><td>AMBER_LOCALRT_STARTUP_TIMEOUT</td><td>180s</td></tr>
 *   <tr><td>amber.localrt.stop.timeout</td><td>AMBER_LOCALRT_STOP_TIMEOUT</td><td>30s</td></tr>
 *   <tr><td>amber.project.dir</td><td>AMBER_PROJECT_DIR</td><td>user.dir (holds src/dev/localrt/*-pom.xml)</td></tr>
 * </table>
 *
 * <p>Timeouts accept {@code 90s}, {@code 2m}, {@code 500ms} or a plain number of seconds. Heaps are
 * JVM sizes ({@code 512M}, {@code 1G}).
 */
public record LocalRuntimeOptions(
    Path baseDir,
    int cqlPort,
    int storagePort,
    int jmxPort,
    String cassandraHeap,
    CassandraMemtable cassandraMemtable,
    int cassandraRequestThreads,
    String cassandraVersion,
    int kafkaPort,
    int kafkaControllerPort,
    String kafkaHeap,
    String kafkaVersion,
    Duration startupTimeout,
    Duration stopTimeout,
    Path projectDir) {

  public static final String PREFIX = "amber.localrt.";

  public LocalRuntimeOptions {
    Objects.requireNonNull(baseDir, "baseDir");
    Objects.requireNonNull(cassandraHeap, "cassandraHeap");
    Objects.requireNonNull(cassandraMemtable, "cassandraMemtable");
    if (cassandraRequestThreads < 0) {
      throw new IllegalArgumentException("cassandraRequestThreads must be >= 0");
    }
    Objects.requireNonNull(cassandraVersion, "cassandraVersion");
    Objects.requireNonNull(kafkaHeap, "kafkaHeap");
    Objects.requireNonNull(kafkaVersion, "kafkaVersion");
    Objects.requireNonNull(startupTimeout, "startupTimeout");
    Objects.requireNonNull(stopTimeout, "stopTimeout");
    Objects.requireNonNull(projectDir, "projectDir");
    baseDir = baseDir.toAbsolutePath().normalize();
    projectDir = projectDir.toAbsolutePath().normalize();
  }

  /** The built-in defaults, without looking at system properties or the environment. */
  public static LocalRuntimeOptions defaults() {
    return defaults(CassandraMemtable.skipListsOnHeap("64MiB"));
  }

  /** The built-in defaults with other memtables. */
  static LocalRuntimeOptions defaults(CassandraMemtable memtable) {
    Path cwd = Path.of(System.getProperty("user.dir"));
    return new LocalRuntimeOptions(
        cwd.resolve(".runtime"),
        9042,
        7000,
        7199,
        "1G",
        memtable,
        0,
        "5.0.6",
        9092,
        9093,
        "512M",
        "4.1.2",
        Duration.ofSeconds(180),
        Duration.ofSeconds(30),
        cwd);
  }

  /** The defaults with system property and environment overrides applied. */
  public static LocalRuntimeOptions fromEnvironment() {
    return defaults().overriddenFromEnvironment();
  }

  /**
   * The benchmarks' node: {@link CassandraMemtable#PRODUCTION_LIKE} memtables instead of the small
   * dev and CI ones, so compaction costs what it costs on a production node; overrides as in {@link
   * #fromEnvironment()}.
   */
  public static LocalRuntimeOptions forBenchmarks() {
    return defaults(CassandraMemtable.PRODUCTION_LIKE).overriddenFromEnvironment();
  }

  /** This record with system property / environment variable overrides applied on top. */
  public LocalRuntimeOptions overriddenFromEnvironment() {
    return overriddenBy(System::getProperty, System::getenv);
  }

  /**
   * This record with only system property overrides applied; the integration tests use this so
   * {@code AMBER_LOCALRT_*} variables exported for a dev instance cannot move them onto its ports.
   */
  public LocalRuntimeOptions overriddenFromSystemProperties() {
    return overriddenBy(System::getProperty, name -> null);
  }

  /**
   * Applies overrides from two lookups (system-property style names and env-style names); the first
   * one that yields a non-blank value wins. Separate from the real lookups so it can be
   * unit-tested.
   */
  LocalRuntimeOptions overriddenBy(UnaryOperator<String> props, UnaryOperator<String> env) {
    Lookup l = new Lookup(props, env);
    return new LocalRuntimeOptions(
        l.path(PREFIX + "dir", baseDir),
        l.port(PREFIX + "cql.port", cqlPort),
        l.port(PREFIX + "storage.port", storagePort),
        l.port(PREFIX + "jmx.port", jmxPort),
        l.string(PREFIX + "cassandra.heap", cassandraHeap),
        l.memtable(PREFIX + "cassandra.memtable", cassandraMemtable),
        l.requestThreads(PREFIX + "cassandra.request-threads", cassandraRequestThreads),
        l.string(PREFIX + "cassandra.version", cassandraVersion),
        l.port(PREFIX + "kafka.port", kafkaPort),
        l.port(PREFIX + "kafka.controller.port", kafkaControllerPort),
        l.string(PREFIX + "kafka.heap", kafkaHeap),
        l.string(PREFIX + "kafka.version", kafkaVersion),
        l.duration(PREFIX + "startup.timeout", startupTimeout),
        l.duration(PREFIX + "stop.timeout", stopTimeout),
        l.path("amber.project.dir", projectDir));
  }

  public LocalRuntimeOptions withBaseDir(Path v) {
    return new LocalRuntimeOptions(
        v,
        cqlPort,
        storagePort,
        jmxPort,
        cassandraHeap,
        cassandraMemtable,
        cassandraRequestThreads,
        cassandraVersion,
        kafkaPort,
        kafkaControllerPort,
        kafkaHeap,
        kafkaVersion,
        startupTimeout,
        stopTimeout,
        projectDir);
  }

  public LocalRuntimeOptions withCqlPort(int v) {
    return new LocalRuntimeOptions(
        baseDir,
        v,
        storagePort,
        jmxPort,
        cassandraHeap,
        cassandraMemtable,
        cassandraRequestThreads,
        cassandraVersion,
        kafkaPort,
        kafkaControllerPort,
        kafkaHeap,
        kafkaVersion,
        startupTimeout,
        stopTimeout,
        projectDir);
  }

  public LocalRuntimeOptions withStoragePort(int v) {
    return new LocalRuntimeOptions(
        baseDir,
        cqlPort,
        v,
        jmxPort,
        cassandraHeap,
        cassandraMemtable,
        cassandraRequestThreads,
        cassandraVersion,
        kafkaPort,
        kafkaControllerPort,
        kafkaHeap,
        kafkaVersion,
        startupTimeout,
        stopTimeout,
        projectDir);
  }

  public LocalRuntimeOptions withJmxPort(int v) {
    return new LocalRuntimeOptions(
        baseDir,
        cqlPort,
        storagePort,
        v,
        cassandraHeap,
        cassandraMemtable,
        cassandraRequestThreads,
        cassandraVersion,
        kafkaPort,
        kafkaControllerPort,
        kafkaHeap,
        kafkaVersion,
        startupTimeout,
        stopTimeout,
        projectDir);
  }

  public LocalRuntimeOptions withCassandraHeap(String v) {
    return new LocalRuntimeOptions(
        baseDir,
        cqlPort,
        storagePort,
        jmxPort,
        v,
        cassandraMemtable,
        cassandraRequestThreads,
        cassandraVersion,
        kafkaPort,
        kafkaControllerPort,
        kafkaHeap,
        kafkaVersion,
        startupTimeout,
        stopTimeout,
        projectDir);
  }

  public LocalRuntimeOptions withKafkaPort(int v) {
    return new LocalRuntimeOptions(
        baseDir,
        cqlPort,
        storagePort,
        jmxPort,
        cassandraHeap,
        cassandraMemtable,
        cassandraRequestThreads,
        cassandraVersion,
        v,
        kafkaControllerPort,
        kafkaHeap,
        kafkaVersion,
        startupTimeout,
        stopTimeout,
        projectDir);
  }

  public LocalRuntimeOptions withKafkaControllerPort(int v) {
    return new LocalRuntimeOptions(
        baseDir,
        cqlPort,
        storagePort,
        jmxPort,
        cassandraHeap,
        cassandraMemtable,
        cassandraRequestThreads,
        cassandraVersion,
        kafkaPort,
        v,
        kafkaHeap,
        kafkaVersion,
        startupTimeout,
        stopTimeout,
        projectDir);
  }

  public Path cassandraDir() {
    return baseDir.resolve("cassandra");
  }

  public Path kafkaDir() {
    return baseDir.resolve("kafka");
  }

  /** {@code amber.localrt.cql.port} -> {@code AMBER_LOCALRT_CQL_PORT}. */
  static String envName(String property) {
    return property.toUpperCase(Locale.ROOT).replace('.', '_');
  }

  static Duration parseDuration(String s) {
    String v = s.trim().toLowerCase(Locale.ROOT);
    try {
      if (v.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2).trim()));
      }
      if (v.endsWith("s")) {
        return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1).trim()));
      }
      if (v.endsWith("m")) {
        return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1).trim()));
      }
      return Duration.ofSeconds(Long.parseLong(v));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Not a duration: '" + s + "' (use e.g. 90s, 2m, 500ms)", e);
    }
  }

  private record Lookup(UnaryOperator<String> props, UnaryOperator<String> env) {
    String raw(String property) {
      String v = props.apply(property);
      if (v == null || v.isBlank()) {
        v = env.apply(envName(property));
      }
      return v == null || v.isBlank() ? null : v.trim();
    }

    String string(String property, String fallback) {
      String v = raw(property);
      return v == null ? fallback : v;
    }

    Path path(String property, Path fallback) {
      String v = raw(property);
      return v == null ? fallback : Path.of(v);
    }

    int port(String property, int fallback) {
      return between(property, fallback, 1, 65535, "a TCP port");
    }

    int requestThreads(String property, int fallback) {
      return between(property, fallback, 0, 1024, "0 (Cassandra's defaults) or 1-1024 threads");
    }

    /** An integer from {@code min} to {@code max}; else an error saying it must be {@code what}. */
    private int between(String property, int fallback, int min, int max, String what) {
      String v = raw(property);
      if (v == null) {
        return fallback;
      }
      try {
        int n = Integer.parseInt(v);
        if (n >= min && n <= max) {
          return n;
        }
      } catch (NumberFormatException e) {
        // the message below names the property and the value
      }
      throw new IllegalArgumentException(property + " must be " + what + ", got '" + v + "'");
    }

    CassandraMemtable memtable(String property, CassandraMemtable fallback) {
      return new CassandraMemtable(
          string(property, fallback.space()),
          choice(CassandraMemtable.Kind.class, property + ".kind", fallback.kind()),
          choice(
              CassandraMemtable.Allocation.class, property + ".allocation", fallback.allocation()));
    }

    /** One of {@code type}'s constants, named in any case; else an error naming the choices. */
    <E extends Enum<E>> E choice(Class<E> type, String property, E fallback) {
      String v = raw(property);
      if (v == null) {
        return fallback;
      }
      return EnumNames.parse(type, v)
          .orElseThrow(
              () -> new IllegalArgumentException(property + " " + EnumNames.mustBeOneOf(type, v)));
    }

    Duration duration(String property, Duration fallback) {
      String v = raw(property);
      return v == null ? fallback : parseDuration(v);
    }
  }
}
