package io.ambergarden.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * What the read path reports: its speculative executions, and amber.read.latency, a histogram per
 * stage, so an operator (and the benchmark) can tell where a slow read spent its time:
 *
 * <ul>
 *   <li>{@code http}: from the route's handler to the reply handed to the connection, per read;
 *   <li>{@code query}: from the query verticle taking the bus request to its reply, per read (the
 *       difference to {@code http} is the bus hop both ways and waiting for the two event loops);
 *   <li>{@code cassandra}: one CQL read, from execute to its last row (driver and node).
 * </ul>
 *
 * The read tag is the bus address without its {@code amber.query.} prefix, a fixed set.
 */
public final class ReadMeters {
  private static final String PREFIX = "amber.query.";

  private final MeterRegistry registry;
  private final Counter speculative;
  private final Timer cassandra;
  // by bus address: the bus's constants, so each holds at most one entry per read
  private final Map<String, Timer> http = new ConcurrentHashMap<>();
  private final Map<String, Timer> query = new ConcurrentHashMap<>();

  public ReadMeters(MeterRegistry registry) {
    this.registry = registry;
    this.speculative = AmberMeters.speculativeExecutions(registry, "read");
    this.cassandra = timer("cassandra", "cql");
  }

  /** Meters nobody scrapes, for verticles deployed without the service (tests). */
  public static ReadMeters unscraped() {
    return new ReadMeters(new SimpleMeterRegistry());
  }

  /** Speculative executions of a read (event pages, latest state, stats). */
  public void speculativeExecutions(int n) {
    if (n > 0) {
      speculative.increment(n);
    }
  }

  /** One CQL read took this long, from execute to its last row. */
  public void cassandraRead(long nanos) {
    cassandra.record(nanos, TimeUnit.NANOSECONDS);
  }

  /** The query verticle answered a request on {@code address} this long after taking it. */
  public void queried(String address, long nanos) {
    query
        .computeIfAbsent(address, a -> timer("query", readName(a)))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  /** The HTTP route handed the reply of a request on {@code address} over this long after entry. */
  public void answered(String address, long nanos) {
    http.computeIfAbsent(address, a -> timer("http", readName(a)))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  static String readName(String address) {
    return address.startsWith(PREFIX) ? address.substring(PREFIX.length()) : address;
  }

  private Timer timer(String stage, String read) {
    return Timer.builder("amber.read.latency")
        .tag("stage", stage)
        .tag("read", read)
        .description(
            "Latency of reads by stage: http (route to reply), query (query verticle),"
                + " cassandra (one CQL read)")
        .publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofMillis(1))
        .maximumExpectedValue(Duration.ofSeconds(10))
        .register(registry);
  }
}
