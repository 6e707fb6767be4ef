package io.ambergarden.web.read;

import io.ambergarden.event.Event;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import java.util.Locale;

/** The formats of an export: how a page of events becomes response bytes, and its headers. */
enum ExportFormat {
  /** One page item per line ({@link EventApiJson}). */
  NDJSON("application/x-ndjson", "ndjson"),
  /** {@link CsvRows}, with the header first. */
  CSV("text/csv; charset=utf-8", "csv");

  final String contentType;
  final String extension;

  ExportFormat(String contentType, String extension) {
    this.contentType = contentType;
    this.extension = extension;
  }

  /** The format named {@code ndjson} or {@code csv}, any case; null for anything else. */
  static ExportFormat named(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "ndjson" -> NDJSON;
      case "csv" -> CSV;
      default -> null;
    };
  }

  /** What comes before the first event: the CSV header, nothing for NDJSON. */
  Buffer head(List<String> metrics) {
    return this == CSV ? Buffer.buffer(CsvRows.header(metrics)) : Buffer.buffer();
  }

  /** The bytes of one page of events. */
  Buffer render(List<Event> events, List<String> metrics) {
    if (this == NDJSON) {
      return EventApiJson.lines(events);
    }
    StringBuilder out = new StringBuilder(64 + 96 * events.size());
    for (Event e : events) {
      CsvRows.append(out, e, metrics);
    }
    return Buffer.buffer(out.toString());
  }
}
