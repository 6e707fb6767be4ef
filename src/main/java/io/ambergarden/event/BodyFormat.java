package io.ambergarden.event;

/** How a request body frames its events. */
public enum BodyFormat {
  /** A single JSON object, or a JSON array of objects. */
  JSON,
  /** Newline-delimited JSON: one object per non-blank line; blank lines are skipped. */
  NDJSON
}
