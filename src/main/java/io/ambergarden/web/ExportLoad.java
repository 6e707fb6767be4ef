package io.ambergarden.web;

import io.ambergarden.metrics.AmberMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the exports of this process hold and did, shared by every HTTP verticle instance: the export
 * slots ({@code export.max-concurrent}), the response bytes written and not yet flushed to the
 * sockets (with their high-water mark since start), and the pages and events read. Thread-safe.
 */
public final class ExportLoad {
  /** How an export ended. */
  public enum Outcome {
    COMPLETE,
    DISCONNECTED,
    STALLED,
    FAILED
  }

  private final AdmissionBudget slots;
  private final AtomicLong buffered = new AtomicLong();
  private final AtomicLong peak = new AtomicLong();
  private final AtomicLong waiting = new AtomicLong();
  private final Counter pages;
  private final Counter events;
  private final Counter paused;
  private final Counter refused;
  private final Map<Outcome, Counter> ended = new EnumMap<>(Outcome.class);

  public ExportLoad(int maxConcurrent, MeterRegistry registry) {
    slots = new AdmissionBudget(maxConcurrent);
    Gauge.builder("amber.export.active", slots, AdmissionBudget::used)
        .description("Exports running")
        .register(registry);
    Gauge.builder("amber.export.active.max", slots, AdmissionBudget::max)
        .description("Exports allowed at once (export.max-concurrent)")
        .register(registry);
    Gauge.builder("amber.export.buffered.bytes", buffered, AtomicLong::get)
        .description("Export response bytes written and not yet flushed to the sockets")
        .baseUnit("bytes")
        .register(registry);
    Gauge.builder("amber.export.buffered.peak.bytes", peak, AtomicLong::get)
        .description("Highest amber.export.buffered.bytes since start")
        .baseUnit("bytes")
        .register(registry);
    Gauge.builder("amber.export.waiting", waiting, AtomicLong::get)
        .description("Exports paused now, waiting for their clients to read")
        .register(registry);
    pages = AmberMeters.counter(registry, "amber.export.pages", "Pages exports read");
    events = AmberMeters.counter(registry, "amber.export.events", "Events exports read");
    paused =
        AmberMeters.counter(
            registry, "amber.export.paused", "Times an export paused for a slow client");
    refused =
        AmberMeters.counter(registry, "amber.export.refused", "Exports refused at the cap (429)");
    for (Outcome o : Outcome.values()) {
      ended.put(
          o,
          Counter.builder("amber.export.ended")
              .tag("outcome", o.name().toLowerCase(Locale.ROOT))
              .description("Exports ended, by outcome")
              .register(registry));
    }
  }

  /** Takes an export slot; false (and counted as refused) when every slot is taken. */
  public boolean tryStart() {
    if (slots.tryAcquire(1)) {
      return true;
    }
    refused.increment();
    return false;
  }

  /** Gives the slot back; call once per successful {@link #tryStart}. */
  public void ended(Outcome outcome) {
    slots.release(1);
    ended.get(outcome).increment();
  }

  public void read(int eventCount) {
    pages.increment();
    events.increment(eventCount);
  }

  /** An export paused its reads for its client. */
  public void paused() {
    paused.increment();
    waiting.incrementAndGet();
  }

  /** A paused export goes on (its client caught up) or ended. */
  public void resumed() {
    waiting.decrementAndGet();
  }

  public long waiting() {
    return waiting.get();
  }

  /** Bytes written (positive) or flushed or dropped (negative). */
  public void buffered(long delta) {
    long now = buffered.addAndGet(delta);
    peak.accumulateAndGet(now, Math::max);
  }

  public long bufferedBytes() {
    return buffered.get();
  }

  public long peakBufferedBytes() {
    return peak.get();
  }

  public long active() {
    return slots.used();
  }
}
