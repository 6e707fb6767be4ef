package io.ambergarden.localrt;

import java.util.Locale;
import java.util.Objects;

/**
 * The local node's memtables: how much space they may take, and which implementation holds them.
 *
 * @param space {@code memtable_heap_space} and {@code memtable_offheap_space} (a Cassandra size,
 *     {@code 64MiB})
 * @param kind the implementation and where its cells live
 */
public record CassandraMemtable(String space, Kind kind) {

  /**
   * Cassandra 5.0's two memtable setups: its {@code cassandra.yaml} and its latest-defaults file.
   */
  public enum Kind {
    /** {@code SkipListMemtable} with {@code heap_buffers}: what cassandra.yaml ships. */
    SKIPLIST("SkipListMemtable", "heap_buffers"),
    /** {@code TrieMemtable} with {@code offheap_objects}: what cassandra_latest.yaml ships. */
    TRIE("TrieMemtable", "offheap_objects");

    final String className;
    final String allocationType;

    Kind(String className, String allocationType) {
      this.className = className;
      this.allocationType = allocationType;
    }

    static Kind parse(String property, String value) {
      try {
        return valueOf(value.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            property + " must be skiplist or trie, got '" + value + "'", e);
      }
    }
  }

  public CassandraMemtable {
    Objects.requireNonNull(space, "space");
    Objects.requireNonNull(kind, "kind");
  }

  /** The cassandra.yaml lines for these memtables. */
  String yaml() {
    return """
        memtable_heap_space: %1$s
        memtable_offheap_space: %1$s
        memtable_allocation_type: %2$s
        memtable:
          configurations:
            default:
              class_name: %3$s
        """
        .formatted(space, kind.allocationType, kind.className);
  }

  /** How a report names them, e.g. {@code SkipListMemtable, heap_buffers, 64MiB}. */
  @Override
  public String toString() {
    return kind.className + ", " + kind.allocationType + ", " + space;
  }
}
