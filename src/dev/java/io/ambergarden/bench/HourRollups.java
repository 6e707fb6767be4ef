package io.ambergarden.bench;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Keeps the service's hourly rollup out of measured windows. {@code rollup.grace} plus {@code
 * rollup.mark-safety} after an hour ends, the service recomputes every device-hour of it that had
 * events: 2,000 in a bench run, which cut (b) by up to half and raised the idle floor of the 0%
 * level when they fell inside them. Before a window opens, {@link #clear} waits out a rollup that
 * would start inside it or may still be running, with its CPU booked to a ledger row of its own.
 */
final class HourRollups {
  /** How long after its start a rollup may still be recomputing (2,000 device-hours here). */
  static final Duration LONGEST = Duration.ofMinutes(4);

  /** The recompute count stays still this long: the rollup is over. */
  static final Duration STILL = Duration.ofSeconds(15);

  /** How long after a rollup's start its first recompute may come. */
  static final Duration FIRST_RISE = Duration.ofMinutes(1);

  private final Duration afterHourEnd;
  private final CpuLedger ledger;
  private final Supplier<OptionalLong> recomputes;

  HourRollups(Duration afterHourEnd, CpuLedger ledger, Supplier<OptionalLong> recomputes) {
    this.afterHourEnd = afterHourEnd;
    this.ledger = ledger;
    this.recomputes = recomputes;
  }

  /** Recomputes a measured phase may hold without a warning (late events reopen a few hours). */
  static final long TOLERATED = 100;

  static final String COUNTER = "service rollup recomputes";

  /**
   * A line per measured phase ((b), (e), the steady levels, the soak) holding more than {@link
   * #TOLERATED} recomputes: its figures include a rollup's work and are not comparable.
   */
  static List<String> leaks(List<CpuLedger.Phase> phases) {
    List<String> out = new ArrayList<>();
    for (CpuLedger.Phase p : phases) {
      boolean measured =
          p.name().startsWith("(b)")
              || p.name().startsWith("(e)")
              || p.name().startsWith("steady ")
              || p.name().startsWith("soak");
      long n = p.counts().getOrDefault(COUNTER, 0L);
      if (measured && !p.name().contains("settle") && n > TOLERATED) {
        out.add(
            String.format(
                "WARNING: \"%s\" held %d rollup recomputes: its figures include an hour's rollup",
                p.name(), n));
      }
    }
    return out;
  }

  /**
   * The start of a rollup that a window of {@code length} opened at {@code now} would overlap: one
   * that started less than {@link #LONGEST} ago, or the next one if it starts before the window
   * ends.
   */
  static Optional<Instant> overlapping(Instant now, Duration length, Duration afterHourEnd) {
    Instant last = now.minus(afterHourEnd).truncatedTo(ChronoUnit.HOURS).plus(afterHourEnd);
    if (Duration.between(last, now).compareTo(LONGEST) < 0) {
      return Optional.of(last);
    }
    Instant next = last.plus(Duration.ofHours(1));
    return next.isBefore(now.plus(length)) ? Optional.of(next) : Optional.empty();
  }

  /**
   * Before a window of {@code length}: waits for an overlapping rollup to start and then for its
   * recompute count to stay still for {@link #STILL} ({@link #LONGEST} at most); returns a line
   * saying what was waited for, or empty when no rollup was near.
   */
  Optional<String> clear(String window, Duration length) throws InterruptedException {
    Instant now = Instant.now();
    Optional<Instant> start = overlapping(now, length, afterHourEnd);
    if (start.isEmpty()) {
      return Optional.empty();
    }
    CpuLedger.Span span = ledger.start("hour rollup, kept out of " + window);
    long before = recomputes.get().orElse(0);
    long waitMillis = Math.max(0, Duration.between(now, start.get()).toMillis());
    TimeUnit.MILLISECONDS.sleep(waitMillis); // the rollup starts on the clock, not on an event
    long deadline = System.nanoTime() + LONGEST.toNanos();
    // the first scan after the start may come a scan interval and a lease later: wait for the
    // count to rise (a minute at most: an hour without events has nothing to recompute), then for
    // it to stay still
    long seen = recomputes.get().orElse(0);
    long firstRiseBy = System.nanoTime() + FIRST_RISE.toNanos();
    boolean rose = seen > before;
    while (System.nanoTime() < deadline) {
      TimeUnit.NANOSECONDS.sleep(STILL.toNanos()); // polling the service's counter
      long again = recomputes.get().orElse(seen);
      if (again == seen && (rose || System.nanoTime() > firstRiseBy)) {
        break;
      }
      rose |= again > seen;
      seen = again;
    }
    CpuLedger.Phase phase = span.end(0);
    return Optional.of(
        String.format(
            "hour rollup kept out of %s: waited %.0f s (%d recomputes), its CPU booked to \"%s\"",
            window, phase.wallSeconds(), seen - before, phase.name()));
  }
}
