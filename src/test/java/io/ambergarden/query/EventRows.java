package io.ambergarden.query;

import com.datastax.oss.driver.api.core.ProtocolVersion;
import com.datastax.oss.driver.api.core.cql.ColumnDefinition;
import com.datastax.oss.driver.api.core.cql.ColumnDefinitions;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.detach.AttachmentPoint;
import com.datastax.oss.driver.api.core.type.codec.TypeCodecs;
import com.datastax.oss.driver.internal.core.cql.DefaultColumnDefinition;
import com.datastax.oss.driver.internal.core.cql.DefaultColumnDefinitions;
import com.datastax.oss.driver.internal.core.cql.DefaultRow;
import com.datastax.oss.protocol.internal.ProtocolConstants;
import com.datastax.oss.protocol.internal.response.result.ColumnSpec;
import com.datastax.oss.protocol.internal.response.result.RawType;
import io.ambergarden.cassandra.CqlTypes;
import io.ambergarden.event.Event;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Rows as the driver hands them over: its own row class, column definitions of the query's columns
 * with the schema's types, and values encoded by its codecs (an unset or empty column as null, as
 * Cassandra returns it).
 */
final class EventRows {
  private static final RawType TEXT = RawType.PRIMITIVES.get(ProtocolConstants.DataType.VARCHAR);
  private static final ProtocolVersion PV = AttachmentPoint.NONE.getProtocolVersion();

  private static final ColumnDefinitions DEVICE =
      definitions(
          "events_by_device",
          QueryStatements.DEVICE_COLUMNS,
          RawType.PRIMITIVES.get(ProtocolConstants.DataType.TIMESTAMP),
          TEXT,
          TEXT,
          TEXT,
          RawType.PRIMITIVES.get(ProtocolConstants.DataType.INT),
          new RawType.RawMap(TEXT, RawType.PRIMITIVES.get(ProtocolConstants.DataType.DOUBLE)),
          new RawType.RawMap(TEXT, TEXT),
          TEXT);
  private static final RawType TIMESTAMP =
      RawType.PRIMITIVES.get(ProtocolConstants.DataType.TIMESTAMP);
  private static final ColumnDefinitions TYPE =
      definitions("events_by_type", QueryStatements.TYPE_COLUMNS, TIMESTAMP, TEXT, TEXT, TIMESTAMP);

  private EventRows() {}

  /** A row of {@link QueryStatements#DEVICE_COLUMNS} holding {@code e}. */
  static Row ofDevice(Event e) {
    return row(DEVICE, text(e.eventId()), text(e.deviceType()), e);
  }

  /**
   * A slim index row of {@link QueryStatements#TYPE_COLUMNS} naming {@code e}; {@code detailBucket}
   * null as for a row in the bucket's own detail partition.
   */
  static Row ofType(Event e, Long detailBucket) {
    List<ByteBuffer> data = new ArrayList<>();
    data.add(TypeCodecs.TIMESTAMP.encode(Instant.ofEpochMilli(e.ts()), PV));
    data.add(text(e.deviceId()));
    data.add(text(e.eventId()));
    data.add(
        detailBucket == null
            ? null
            : TypeCodecs.TIMESTAMP.encode(Instant.ofEpochMilli(detailBucket), PV));
    return new DefaultRow(TYPE, data);
  }

  private static Row row(ColumnDefinitions defs, ByteBuffer second, ByteBuffer third, Event e) {
    List<ByteBuffer> data = new ArrayList<>();
    data.add(TypeCodecs.TIMESTAMP.encode(Instant.ofEpochMilli(e.ts()), PV));
    data.add(second);
    data.add(third);
    data.add(text(e.status()));
    data.add(TypeCodecs.INT.encode(e.code(), PV));
    data.add(e.metrics().isEmpty() ? null : CqlTypes.METRICS.encode(e.metrics(), PV));
    data.add(e.tags().isEmpty() ? null : CqlTypes.TAGS.encode(e.tags(), PV));
    data.add(text(e.payload()));
    return new DefaultRow(defs, data);
  }

  private static ByteBuffer text(String s) {
    return TypeCodecs.TEXT.encode(s, PV);
  }

  /** The query's columns with the schema's types, in order. */
  private static ColumnDefinitions definitions(String table, String columns, RawType... types) {
    String[] names = columns.split(",\\s*");
    List<ColumnDefinition> defs = new ArrayList<>();
    for (int i = 0; i < names.length; i++) {
      defs.add(
          new DefaultColumnDefinition(
              new ColumnSpec("amber", table, names[i], i, types[i]), AttachmentPoint.NONE));
    }
    return DefaultColumnDefinitions.valueOf(defs);
  }
}
