package io.ambergarden.chaos;

import java.util.Map;
import java.util.TreeMap;

/**
 * Tries by kind and outcome, for the report. Bounded: at most {@link #MAX_KINDS} kinds and {@link
 * #MAX_OUTCOMES} outcomes per kind; past a bound the try counts under {@link #OTHER}. Thread-safe.
 */
final class FaultTally {
  static final int MAX_KINDS = 32;
  static final int MAX_OUTCOMES = 128;
  static final String OTHER = "other";

  private final Map<String, Map<String, Long>> counts = new TreeMap<>();

  synchronized void add(String kind, String outcome) {
    String k = counts.containsKey(kind) || counts.size() < MAX_KINDS ? kind : OTHER;
    Map<String, Long> outcomes = counts.computeIfAbsent(k, x -> new TreeMap<>());
    String o = outcomes.containsKey(outcome) || outcomes.size() < MAX_OUTCOMES ? outcome : OTHER;
    outcomes.merge(o, 1L, Long::sum);
  }

  /** A copy: kind, then outcome, then how many tries. */
  synchronized Map<String, Map<String, Long>> snapshot() {
    Map<String, Map<String, Long>> out = new TreeMap<>();
    counts.forEach((k, v) -> out.put(k, new TreeMap<>(v)));
    return out;
  }

  synchronized long total(String kind) {
    return counts.getOrDefault(kind, Map.of()).values().stream().mapToLong(Long::longValue).sum();
  }
}
