package io.ambergarden.event;

import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The state of one parse call: its errors and their context (inherited), the events accepted so
 * far, the accepted ts window, the collections of the event being read, and payload scratch reused
 * across the events of the call. Never shared between threads.
 */
final class ParseRun extends ErrorCollector {

  final long minTs;
  final long maxTs;

  /** True for a Kafka record value (one object), false for a request body. */
  final boolean single;

  final ArrayList<Event> events = new ArrayList<>();

  // the event being read: filled by the field rules, taken by EventReader
  long tsValue;
  LinkedHashMap<String, Double> metrics;
  boolean metricsOverflow;
  LinkedHashMap<String, String> tags;
  boolean tagsOverflow;

  // payload copy scratch, created on the first payload of the call
  private final int maxDepth;
  private ByteArrayBuilder payloadOut;
  private byte[] kind;
  String[] names;
  int[] pos;
  private List<HashSet<String>> keySets;

  ParseRun(long now, boolean single, EventLimits limits) {
    long retention = limits.retentionMillis();
    long skew = limits.futureSkewMillis();
    this.minTs = now - retention > now ? Long.MIN_VALUE : now - retention;
    this.maxTs = now + skew < now ? Long.MAX_VALUE : now + skew;
    this.single = single;
    this.maxDepth = limits.maxDepth();
  }

  /** Clears the per-event collections before an event is read. */
  void startEvent() {
    metrics = null;
    metricsOverflow = false;
    tags = null;
    tagsOverflow = false;
  }

  /** Replaces everything with the one batch-too-large error. */
  void tooLarge(String message) {
    errors.clear();
    events.clear();
    errors.add(new FieldError(-1, FieldError.DOCUMENT, message));
  }

  ByteArrayBuilder payloadOut() {
    if (payloadOut == null) {
      payloadOut = new ByteArrayBuilder(256);
    }
    return payloadOut;
  }

  /** Per nesting level of the payload: object or array (also creates names and pos). */
  byte[] kind() {
    if (kind == null) {
      int n = maxDepth + 2;
      kind = new byte[n];
      names = new String[n];
      pos = new int[n];
      keySets = new ArrayList<>();
    }
    return kind;
  }

  /** The keys seen so far in the payload object at {@code depth}. */
  HashSet<String> keys(int depth) {
    while (keySets.size() <= depth) {
      keySets.add(new HashSet<>());
    }
    return keySets.get(depth);
  }
}
