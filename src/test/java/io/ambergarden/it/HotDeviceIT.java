package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import io.ambergarden.cassandra.DetailSlices;
import io.ambergarden.localrt.RealServers;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One device pushed at a high rate: its detail partitions stay under the row target (scaled down
 * here to {@value #TARGET} rows, so a {@value #EVENTS}-event burst needs salted slices), by exact
 * row counts and by the table's own metrics, and paging over it returns every event once, in order.
 */
@ExtendWith(RealServers.class)
@Timeout(300)
class HotDeviceIT {
  static final String KEYSPACE = "amber_hot_it";
  static final int TARGET = 2500;
  static final int EVENTS = 20_000;
  static final String DEVICE = "hot-" + UUID.randomUUID().toString().substring(0, 8);
  static TestService s;
  static long t0;

  @BeforeAll
  static void pushOneDeviceAtAHighRate() {
    TestService.dropKeyspace(KEYSPACE);
    s =
        TestService.start(
            Map.of(
                "cassandra.keyspace", KEYSPACE,
                "ingest.mode", "direct",
                "kafka.consumer.enabled", "false",
                "rollup.enabled", "false",
                "counters.enabled", "false",
                "hot.partition-rows", Integer.toString(TARGET),
                // fewer, fuller salts than the rest of the hour would call for: a page reads fewer
                // partitions, and a slice that fills up is split again
                "hot.max-salts", "16"));
    // 100 events/s of event time (10 ms apart), sent as fast as the service takes them
    t0 = System.currentTimeMillis() - 30 * 60_000L;
    long started = System.nanoTime();
    for (int i = 0; i < EVENTS; i += 1000) {
      StringBuilder b = new StringBuilder("[");
      for (int j = i; j < i + 1000; j++) {
        b.append(j > i ? "," : "")
            .append("{\"deviceId\":\"")
            .append(DEVICE)
            .append("\",\"ts\":")
            .append(t0 + j * 10L)
            .append(",\"eventId\":\"e")
            .append(j)
            .append("\",\"deviceType\":\"gateway\",\"status\":\"normal\",\"metrics\":{\"v\":")
            .append(j)
            .append("}}");
      }
      HttpResponse<String> r = s.postEvents(b.append(']').toString());
      assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
    }
    ItLog.printf(
        "HotDeviceIT: %,d events of one device in %.1f s%n",
        EVENTS, (System.nanoTime() - started) / 1e9);
  }

  @AfterAll
  static void stop() {
    if (s != null) {
      s.close();
    }
  }

  /** Every partition key of the device: each bucket's own and its slices' salts. */
  static List<Long> partitions(CqlSession cql) {
    Map<Long, List<DetailSlices.Slice>> slices = new TreeMap<>();
    for (Row r :
        cql.execute(
            "SELECT bucket FROM " + KEYSPACE + ".buckets_by_device WHERE device_id = ?", DEVICE)) {
      slices.put(r.getInstant(0).toEpochMilli(), new ArrayList<>());
    }
    for (Row r :
        cql.execute(
            "SELECT bucket, slice_start, salts FROM "
                + KEYSPACE
                + ".device_slices WHERE device_id = ?",
            DEVICE)) {
      slices
          .get(r.getInstant(0).toEpochMilli())
          .add(new DetailSlices.Slice(r.getInstant(1).toEpochMilli(), r.getInt(2)));
    }
    assertThat(slices.values().stream().mapToInt(List::size).sum())
        .as("slices created for the hot device")
        .isPositive();
    List<Long> out = new ArrayList<>();
    slices.forEach((bucket, list) -> out.addAll(DetailSlices.partitionsOf(bucket, list)));
    return out;
  }

  @Test
  void everyDetailPartitionOfTheHotDeviceStaysUnderTheRowTarget() {
    try (CqlSession cql = TestService.cql()) {
      Map<Long, Long> rows = new HashMap<>();
      for (long p : partitions(cql)) {
        rows.put(
            p,
            cql.execute(
                    "SELECT COUNT(*) FROM "
                        + KEYSPACE
                        + ".events_by_device WHERE device_id = ? AND bucket = ?",
                    DEVICE,
                    Instant.ofEpochMilli(p))
                .one()
                .getLong(0));
      }
      long max = rows.values().stream().mapToLong(Long::longValue).max().orElse(0);
      ItLog.printf(
          "HotDeviceIT: %d partitions, rows per partition max %,d (target %,d, unsalted %,d)%n",
          rows.size(), max, TARGET, EVENTS);
      assertThat(rows.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(EVENTS);
      assertThat(rows.values()).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(TARGET));
    }
  }

  @Test
  void theTablesOwnMetricsShowNoPartitionNearTheSizeOfTheWholeDevice() throws Exception {
    int jmx = RealServers.runtime().options().jmxPort();
    JMXServiceURL url =
        new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmx + "/jmxrmi");
    try (JMXConnector c = JMXConnectorFactory.connect(url)) {
      MBeanServerConnection m = c.getMBeanServerConnection();
      m.invoke(
          new ObjectName("org.apache.cassandra.db:type=StorageService"),
          "forceKeyspaceFlush",
          new Object[] {KEYSPACE, new String[] {"events_by_device"}},
          new String[] {String.class.getName(), String[].class.getName()});
      String table =
          "org.apache.cassandra.metrics:type=Table,keyspace="
              + KEYSPACE
              + ",scope=events_by_device,name=";
      long maxBytes = (Long) m.getAttribute(new ObjectName(table + "MaxPartitionSize"), "Value");
      long meanBytes = (Long) m.getAttribute(new ObjectName(table + "MeanPartitionSize"), "Value");
      long partitions =
          (Long) m.getAttribute(new ObjectName(table + "EstimatedPartitionCount"), "Value");
      ItLog.printf(
          "HotDeviceIT: table metrics: %d partitions, mean %,d bytes, max %,d bytes%n",
          partitions, meanBytes, maxBytes);
      // the whole device, uncompressed, against its largest partition: unsalted that partition
      // would be all of it; salted the largest (the bucket's first part, before the split) holds
      // about a tenth, which the histogram (buckets 20% apart) reports rounded up
      long whole = meanBytes * partitions;
      assertThat(partitions).isGreaterThanOrEqualTo((EVENTS + TARGET - 1) / TARGET);
      assertThat(maxBytes).isLessThan(whole / 4);
      assertThat(maxBytes).isLessThan(100L << 20);
    }
  }

  @Test
  void pagingOverTheHotDeviceReturnsEveryEventOnceInOrder() {
    Set<String> seen = new HashSet<>();
    long[] previousTs = {Long.MAX_VALUE};
    String[] previousId = {""};
    walkPages(
        "/api/v1/devices/" + DEVICE + "/events?limit=1000",
        e -> {
          long ts = e.getLong("ts");
          String id = e.getString("eventId");
          assertThat(seen.add(id)).as("event %s served once", id).isTrue();
          assertThat(ts < previousTs[0] || (ts == previousTs[0] && id.compareTo(previousId[0]) > 0))
              .as("order at %s", id)
              .isTrue();
          previousTs[0] = ts;
          previousId[0] = id;
        });
    assertThat(seen).hasSize(EVENTS);
    assertThat(previousTs[0]).isEqualTo(t0);
  }

  /** Follows a paged read's cursors to the end (200 pages at most), handing over every item. */
  private static void walkPages(String firstPath, Consumer<JsonObject> eachItem) {
    String cursor = null;
    int pages = 0;
    do {
      String path =
          firstPath
              + (cursor == null
                  ? ""
                  : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
      HttpResponse<String> r = s.get(path);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonObject page = new JsonObject(r.body());
      JsonArray items = page.getJsonArray("items");
      for (int i = 0; i < items.size(); i++) {
        eachItem.accept(items.getJsonObject(i));
      }
      cursor = page.getString("next");
      pages++;
    } while (cursor != null && pages < 200);
  }

  /**
   * The slim by-type index (issue 31) names a sliced event's detail partition: paging the type
   * fetches every event of the hot device from its slice, once, in order, with its fields.
   */
  @Test
  void pagingOverTheHotDevicesTypeFetchesEveryEventFromItsSlice() {
    try (CqlSession cql = TestService.cql()) {
      long named =
          cql
              .execute(
                  "SELECT detail_bucket FROM "
                      + KEYSPACE
                      + ".events_by_type WHERE device_type = 'gateway' ALLOW FILTERING")
              .all()
              .stream()
              .filter(r -> !r.isNull(0))
              .count();
      assertThat(named).as("index rows naming a slice's partition").isPositive();
    }
    Set<String> seen = new HashSet<>();
    long[] previousTs = {Long.MAX_VALUE};
    walkPages(
        "/api/v1/device-types/gateway/events?limit=1000",
        e -> {
          String id = e.getString("eventId");
          assertThat(seen.add(id)).as("event %s served once", id).isTrue();
          assertThat(e.getLong("ts")).as("order at %s", id).isLessThan(previousTs[0]);
          previousTs[0] = e.getLong("ts");
          assertThat(e.getJsonObject("metrics").getDouble("v"))
              .as("fields of %s", id)
              .isEqualTo(Double.parseDouble(id.substring(1)));
          assertThat(e.getString("status")).isEqualTo("normal");
        });
    assertThat(seen).hasSize(EVENTS);
  }
}
