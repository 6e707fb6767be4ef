package io.ambergarden.cassandra;

/**
 * How far back a delete of fleet_index pointers reaches. A writer trusts a pointer it wrote (and so
 * skips rewriting it) for less than one {@code fleet.refresh} of event time after the pointer's
 * write time. A delete on behalf of an event, by a writer or by a read's repair, therefore covers
 * only pointers written at least one refresh before that event: it can never remove a pointer some
 * writer still trusts for a newer event, whichever writers handle the device's events.
 */
public final class FleetPointers {
  private FleetPointers() {}

  /** The write time of a delete issued for an event (or state) written at {@code writeTs}. */
  public static long deleteTs(long writeTs, long refreshMillis) {
    return writeTs - refreshMillis * 1000L;
  }
}
