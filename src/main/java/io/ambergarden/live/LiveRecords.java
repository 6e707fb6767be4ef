package io.ambergarden.live;

import io.ambergarden.event.Event;
import io.ambergarden.event.EventJson;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The value format of the live fan-out topic: NDJSON, many events per record, so the broker and
 * every reader handle one record per write batch instead of one per event. A record holds at most
 * {@code maxEvents} events and, unless one event alone is larger, {@code maxBytes} bytes.
 */
public final class LiveRecords {
  private LiveRecords() {}

  public static List<byte[]> encode(List<Event> events, int maxEvents, int maxBytes) {
    if (maxEvents < 1 || maxBytes < 1) {
      throw new IllegalArgumentException("maxEvents and maxBytes must be positive");
    }
    List<byte[]> records = new ArrayList<>();
    ByteArrayOutputStream current = new ByteArrayOutputStream(Math.min(maxBytes, 64 * 1024));
    int count = 0;
    for (Event e : events) {
      byte[] json = EventJson.toJsonBytes(e);
      if (count > 0 && (count == maxEvents || current.size() + json.length + 1 > maxBytes)) {
        records.add(current.toByteArray());
        current.reset();
        count = 0;
      }
      current.write(json, 0, json.length);
      current.write('\n');
      count++;
    }
    if (count > 0) {
      records.add(current.toByteArray());
    }
    return records;
  }
}
