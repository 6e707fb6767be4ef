package io.ambergarden.ingest;

/**
 * Milliseconds from the monotonic clock, for every timeout and interval the consumer measures
 * (retry timeouts, the stall check, poll backoff, the shutdown drain). The wall clock jumps when
 * the machine's time is set; measured with it, one jump of 80 s aged every retrying record by 80 s
 * and looked like a stall. Only differences between two values mean anything.
 */
final class Monotonic {
  /** No such moment yet (a write never failed, or never succeeded). */
  static final long NEVER = Long.MIN_VALUE;

  private Monotonic() {}

  static long millis() {
    return System.nanoTime() / 1_000_000L;
  }
}
