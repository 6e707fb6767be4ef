package io.ambergarden.event;

import java.util.Objects;

/**
 * One validation problem.
 *
 * @param index the event index within the batch (array position, or the 0-based physical line
 *     number for NDJSON; 0 for a single record), or {@code -1} when the problem is not tied to one
 *     event (empty body, malformed document, batch too large, error cap note)
 * @param field a JSON-path-like name: {@code deviceId}, {@code ts}, {@code metrics.temperature},
 *     {@code tags.site}, {@code payload.a[2]}, or {@code $} for the whole document/event
 * @param message a human-readable description, without the field name
 */
public record FieldError(int index, String field, String message) {

  /** The field name used for whole-document (or whole-event) problems. */
  public static final String DOCUMENT = "$";

  public FieldError {
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(message, "message");
  }

  /** For logs: {@code [3] ts: must be an integer}. */
  @Override
  public String toString() {
    return "[" + index + "] " + field + ": " + message;
  }
}
