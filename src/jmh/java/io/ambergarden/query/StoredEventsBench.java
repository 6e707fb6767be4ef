package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.type.reflect.GenericType;
import io.ambergarden.event.Event;
import io.ambergarden.event.SampleEvents;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Rows of events_by_device (the driver's own row class, real column definitions, values encoded by
 * the driver's codecs) turned into events, a page of 100: {@link StoredEvents#ofDevice} with codecs
 * resolved once, side by side with the registry lookups per value it did before. Run with {@code
 * mvn -Pjmh -Djmh.args="StoredEventsBench -prof gc"}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class StoredEventsBench {
  private static final GenericType<Map<String, Double>> METRICS_TYPE =
      GenericType.mapOf(String.class, Double.class);
  private static final GenericType<Map<String, String>> TAGS_TYPE =
      GenericType.mapOf(String.class, String.class);

  private final List<Row> rows = new ArrayList<>();

  @Setup
  public void rows() {
    for (Event e : SampleEvents.page("charger-000042", 100, null)) {
      rows.add(EventRows.ofDevice(e));
    }
  }

  @Benchmark
  public void resolvedCodecs(Blackhole bh) {
    for (Row r : rows) {
      bh.consume(StoredEvents.ofDevice("charger-000042", r));
    }
  }

  /** As StoredEvents read rows before: each value through the registry. */
  @Benchmark
  public void registryLookups(Blackhole bh) {
    for (Row r : rows) {
      bh.consume(
          new Event(
              "charger-000042",
              r.getInstant(0).toEpochMilli(),
              r.getString(1),
              r.getString(2),
              r.getString(3),
              r.isNull(4) ? null : r.getInt(4),
              r.get(5, METRICS_TYPE),
              r.get(6, TAGS_TYPE),
              r.getString(7)));
    }
  }
}
