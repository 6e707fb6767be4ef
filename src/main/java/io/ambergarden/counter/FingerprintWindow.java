package io.ambergarden.counter;

/**
 * The last {@code capacity} distinct 64-bit fingerprints, oldest forgotten first: a ring of
 * insertion order plus an open-addressing set, about 24 bytes per entry and no boxing. Not
 * thread-safe.
 */
final class FingerprintWindow {
  private static final long EMPTY = 0;

  private final long[] ring;
  private final long[] table;
  private final int mask;
  private int head;
  private int size;

  FingerprintWindow(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be positive");
    }
    ring = new long[capacity];
    int slots = Integer.highestOneBit(Math.max(2, capacity * 2 - 1)) << 1;
    table = new long[slots];
    mask = slots - 1;
  }

  int size() {
    return size;
  }

  boolean contains(long fingerprint) {
    long fp = nonEmpty(fingerprint);
    for (int i = slot(fp); ; i = (i + 1) & mask) {
      long v = table[i];
      if (v == EMPTY) {
        return false;
      }
      if (v == fp) {
        return true;
      }
    }
  }

  /** Remembers a fingerprint; at capacity the oldest one is forgotten. */
  void add(long fingerprint) {
    long fp = nonEmpty(fingerprint);
    if (contains(fp)) {
      return;
    }
    if (size == ring.length) {
      remove(ring[head]);
      size--;
    }
    ring[head] = fp;
    head = (head + 1) % ring.length;
    size++;
    int i = slot(fp);
    while (table[i] != EMPTY) {
      i = (i + 1) & mask;
    }
    table[i] = fp;
  }

  /** Linear probing with backward-shift deletion, so no tombstones pile up. */
  private void remove(long fp) {
    int i = slot(fp);
    while (table[i] != fp) {
      if (table[i] == EMPTY) {
        return;
      }
      i = (i + 1) & mask;
    }
    int gap = i;
    for (int j = (gap + 1) & mask; table[j] != EMPTY; j = (j + 1) & mask) {
      int home = slot(table[j]);
      // move j into the gap unless its home lies cyclically in (gap, j]
      boolean homeBetween = gap <= j ? (home > gap && home <= j) : (home > gap || home <= j);
      if (!homeBetween) {
        table[gap] = table[j];
        gap = j;
      }
    }
    table[gap] = EMPTY;
  }

  private int slot(long fp) {
    long h = fp * 0x9E3779B97F4A7C15L;
    return (int) (h >>> 32) & mask;
  }

  private static long nonEmpty(long fp) {
    return fp == EMPTY ? 1 : fp;
  }
}
