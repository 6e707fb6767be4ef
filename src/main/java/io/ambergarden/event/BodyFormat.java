package io.ambergarden.event;

/** How a request body holds its events. */
public enum BodyFormat {
  /** One JSON object, or a JSON array of objects. */
  JSON,
  /** One JSON object per line; blank lines are skipped. */
  NDJSON
}
