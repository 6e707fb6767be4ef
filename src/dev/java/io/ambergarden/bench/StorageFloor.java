package io.ambergarden.bench;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Issue 31's storage floor: some or all of the rows the service writes for each event, written by
 * the raw driver at a fixed rate, in the windows the consumer would hand its writer (the events due
 * in each fetch wait, at most a write batch each) and batched as the writer batches them. No Kafka,
 * no service: Cassandra's CPU per event for those rows is the least any writer of them could cost
 * it, so a Cassandra cost target below it cannot be met by changing the service.
 */
final class StorageFloor {
  /** The variant setting that makes a pairs window a floor window: {@code floor=detail|...}. */
  static final String SETTING = "floor";

  private StorageFloor() {}

  /**
   * Writes {@code events} at {@code rate} events/s from now, every {@code tickMillis} the events
   * due by then, in windows of at most {@code window}; returns the rows written, once all are
   * answered.
   */
  static long write(
      GroupedWriteLoop loop,
      InFlightWrites writes,
      GroupedWriteLoop.Tables tables,
      List<BenchEvents.Spec> events,
      double rate,
      long tickMillis,
      int window)
      throws InterruptedException {
    OpenLoop schedule = new OpenLoop(rate, System.nanoTime());
    Set<String> indexed = new HashSet<>();
    int sent = 0;
    while (sent < events.size()) {
      int due = (int) Math.min(events.size(), schedule.dueBy(System.nanoTime()));
      while (sent < due) {
        int to = Math.min(due, sent + window);
        loop.submitWindow(events.subList(sent, to), writes, indexed, tables);
        sent = to;
      }
      TimeUnit.MILLISECONDS.sleep(tickMillis); // the consumer's fetch wait
    }
    return writes.awaitAll();
  }
}
