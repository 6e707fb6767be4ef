package io.ambergarden.chaos.check;

import java.util.List;
import java.util.Map;

/**
 * What the instances report about their writes, and the faults that allow some of them to repeat.
 *
 * @param journalEvents {@code amber_counter_journal_events_total} summed over every instance
 *     process of the run (dead ones at their last scrape): events whose count record was sent, one
 *     per event per write request, retries of a request by the writer not included
 * @param disruptions each crash, stop past the session timeout, or rebalance, with the records it
 *     may make the consumer write again
 * @param inFlightRecords records in flight when the workload stopped (written again if a rebalance
 *     caught them), 0 when the run ended after the lag was 0
 * @param counterUnknownOutcomes {@code amber_counter_unknown_outcomes_total} summed like
 *     journalEvents: counter updates whose statement timed out
 * @param unknownOutcomeEvents {@code amber_counter_unknown_outcome_events_total} by its {@code
 *     cells} tag (device, all, code, status, type), summed like journalEvents: the events in those
 *     updates. A statement resent after a timeout may count its deltas twice, so a count of such
 *     cells may exceed the sends by at most this many
 */
public record WritePath(
    long journalEvents,
    List<Disruption> disruptions,
    long inFlightRecords,
    long counterUnknownOutcomes,
    Map<String, Long> unknownOutcomeEvents) {

  /**
   * A fault after which a consumer may write records again: the uncommitted records of the
   * partitions it moved (measured, or the configured bound {@code kafka.consumer.max-in-flight +
   * kafka.consumer.max-poll-records} per member that lost partitions).
   */
  public record Disruption(String what, long atMillis, long uncommittedRecords) {}

  public WritePath {
    disruptions = List.copyOf(disruptions);
    unknownOutcomeEvents = Map.copyOf(unknownOutcomeEvents);
  }

  /** How far a resend after a timeout may have counted the {@code cells} cells twice. */
  public long unknownOutcomeAllowance(String cells) {
    return unknownOutcomeEvents.getOrDefault(cells, 0L);
  }

  /** Events the faults allow the write path to write more than the clients sent. */
  public long duplicateBound() {
    return inFlightRecords + disruptions.stream().mapToLong(Disruption::uncommittedRecords).sum();
  }

  /** The configured bound of one rebalance or crash. */
  public static long perRebalance(int maxInFlight, int maxPollRecords) {
    return (long) maxInFlight + maxPollRecords;
  }
}
