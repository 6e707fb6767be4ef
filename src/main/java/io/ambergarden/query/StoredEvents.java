package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.type.codec.TypeCodecs;
import io.ambergarden.cassandra.CqlTypes;
import io.ambergarden.event.Event;
import java.time.Instant;
import java.util.Comparator;

/**
 * Turns rows of the event tables back into events. Columns are read with their codecs, resolved
 * once, rather than through the registry per value; the columns' types are the schema's own.
 */
final class StoredEvents {
  /** The clustering order of events_by_type: ts DESC, device_id ASC, event_id ASC. */
  static final Comparator<Row> TYPE_ORDER =
      Comparator.<Row>comparingLong(r -> ts(r, 0))
          .reversed()
          .thenComparing(r -> text(r, 1))
          .thenComparing(r -> text(r, 2));

  private StoredEvents() {}

  /** A row of {@link QueryStatements#DEVICE_COLUMNS}. */
  static Event ofDevice(String deviceId, Row r) {
    return event(deviceId, ts(r, 0), text(r, 1), text(r, 2), r, 3);
  }

  /**
   * A row of {@link QueryStatements#DEVICE_COLUMNS} served as an event of {@code deviceType}: the
   * type the index row was filed under, as when the index held the event itself.
   */
  static Event ofType(String deviceType, String deviceId, Row r) {
    return event(deviceId, ts(r, 0), text(r, 1), deviceType, r, 3);
  }

  /** A row of {@link QueryStatements#TYPE_COLUMNS}. */
  static DetailLookup.Entry indexEntry(Row r) {
    Instant detail = r.get(3, TypeCodecs.TIMESTAMP);
    return new DetailLookup.Entry(
        ts(r, 0), text(r, 1), text(r, 2), detail == null ? null : detail.toEpochMilli());
  }

  /** status, code, metrics, tags, payload from column {@code i}. */
  private static Event event(
      String deviceId, long ts, String eventId, String deviceType, Row r, int i) {
    return new Event(
        deviceId,
        ts,
        eventId,
        deviceType,
        text(r, i),
        r.get(i + 1, TypeCodecs.INT),
        r.get(i + 2, CqlTypes.METRICS),
        r.get(i + 3, CqlTypes.TAGS),
        text(r, i + 4));
  }

  private static long ts(Row r, int i) {
    return r.get(i, TypeCodecs.TIMESTAMP).toEpochMilli();
  }

  private static String text(Row r, int i) {
    return r.get(i, TypeCodecs.TEXT);
  }
}
