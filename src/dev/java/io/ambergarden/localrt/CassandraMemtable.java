package io.ambergarden.localrt;

import java.util.Locale;
import java.util.Objects;

/**
 * The local node's memtables: how much space they may take, which implementation holds them, and
 * where their cells live.
 *
 * @param space {@code memtable_heap_space} and {@code memtable_offheap_space} (a Cassandra size,
 *     {@code 64MiB})
 * @param kind the implementation
 * @param allocation {@code memtable_allocation_type}
 */
public record CassandraMemtable(String space, Kind kind, Allocation allocation) {

  /** Cassandra 5.0's memtable implementations. */
  public enum Kind {
    /** What cassandra.yaml ships. */
    SKIPLIST("SkipListMemtable"),
    /** What cassandra_latest.yaml ships. */
    TRIE("TrieMemtable");

    final String className;

    Kind(String className) {
      this.className = className;
    }
  }

  /** Cassandra's {@code memtable_allocation_type} values, named as it names them. */
  public enum Allocation {
    /** cassandra.yaml's choice. */
    HEAP_BUFFERS,
    OFFHEAP_BUFFERS,
    /** cassandra_latest.yaml's choice. */
    OFFHEAP_OBJECTS;

    String yamlName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * What the benchmarks run and k8s/engines configures: cassandra_latest.yaml's trie memtables off
   * heap. 256 MiB is smaller than a production node's default (a quarter of its heap), but large
   * enough that flushes, and so compaction, are not the small-memtable artefact 64 MiB is.
   */
  public static final CassandraMemtable PRODUCTION_LIKE =
      new CassandraMemtable("256MiB", Kind.TRIE, Allocation.OFFHEAP_OBJECTS);

  public CassandraMemtable {
    Objects.requireNonNull(space, "space");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(allocation, "allocation");
  }

  /** Cassandra's cassandra.yaml memtables at a given space. */
  public static CassandraMemtable skipListsOnHeap(String space) {
    return new CassandraMemtable(space, Kind.SKIPLIST, Allocation.HEAP_BUFFERS);
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
        .formatted(space, allocation.yamlName(), kind.className);
  }

  /** How a report names them, e.g. {@code SkipListMemtable, heap_buffers, 64MiB}. */
  @Override
  public String toString() {
    return kind.className + ", " + allocation.yamlName() + ", " + space;
  }
}
