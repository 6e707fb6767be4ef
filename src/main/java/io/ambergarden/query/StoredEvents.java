package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.Row;
import io.ambergarden.cassandra.CqlTypes;
import io.ambergarden.event.Event;
import java.util.Comparator;

/** Turns rows of the event tables back into events. */
final class StoredEvents {
  /** The clustering order of events_by_type: ts DESC, device_id ASC, event_id ASC. */
  static final Comparator<Row> TYPE_ORDER =
      Comparator.<Row, java.time.Instant>comparing(r -> r.getInstant(0))
          .reversed()
          .thenComparing(r -> r.getString(1))
          .thenComparing(r -> r.getString(2));

  private StoredEvents() {}

  /** A row of {@link QueryStatements#DEVICE_COLUMNS}. */
  static Event ofDevice(String deviceId, Row r) {
    return event(deviceId, r.getInstant(0).toEpochMilli(), r.getString(1), r.getString(2), r, 3);
  }

  /** A row of {@link QueryStatements#TYPE_COLUMNS}. */
  static Event ofType(String deviceType, Row r) {
    return event(r.getString(1), r.getInstant(0).toEpochMilli(), r.getString(2), deviceType, r, 3);
  }

  /** status, code, metrics, tags, payload from column {@code i}. */
  private static Event event(
      String deviceId, long ts, String eventId, String deviceType, Row r, int i) {
    return new Event(
        deviceId,
        ts,
        eventId,
        deviceType,
        r.getString(i),
        r.isNull(i + 1) ? null : r.getInt(i + 1),
        r.get(i + 2, CqlTypes.METRICS),
        r.get(i + 3, CqlTypes.TAGS),
        r.getString(i + 4));
  }
}
