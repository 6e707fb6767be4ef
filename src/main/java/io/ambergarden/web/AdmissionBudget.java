package io.ambergarden.web;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A process-wide amount (bytes, requests or connections) shared by every HTTP verticle instance: a
 * unit is taken before the work it pays for starts and given back when it ends. Thread-safe and
 * lock-free.
 */
public final class AdmissionBudget {
  private final long max;
  private final AtomicLong used = new AtomicLong();

  public AdmissionBudget(long max) {
    if (max < 1) {
      throw new IllegalArgumentException("a budget needs at least one unit");
    }
    this.max = max;
  }

  /**
   * Takes {@code units}, or nothing when they do not fit. A single demand larger than the whole
   * budget never fits.
   */
  public boolean tryAcquire(long units) {
    if (units < 0) {
      throw new IllegalArgumentException("negative units");
    }
    while (true) {
      long now = used.get();
      if (now + units > max) {
        return false;
      }
      if (used.compareAndSet(now, now + units)) {
        return true;
      }
    }
  }

  public void release(long units) {
    used.addAndGet(-units);
  }

  public long used() {
    return used.get();
  }

  public long max() {
    return max;
  }

  /** Takes {@code units} as a {@link Reservation} that can grow; null when they do not fit. */
  public Reservation reserve(long units) {
    return tryAcquire(units) ? new Reservation(units) : null;
  }

  /**
   * Units held for one piece of work (a request body that may grow while it streams, a replay).
   * Released exactly once, however many times {@link #release()} is called. Used from one thread.
   */
  public final class Reservation {
    private long held;
    private boolean released;

    private Reservation(long held) {
      this.held = held;
    }

    /** Holds at least {@code total} units; false (holding what it held) when they do not fit. */
    public boolean growTo(long total) {
      if (released) {
        return false;
      }
      if (total <= held) {
        return true;
      }
      if (!tryAcquire(total - held)) {
        return false;
      }
      held = total;
      return true;
    }

    /** Gives back what it holds beyond {@code total}. */
    public void shrinkTo(long total) {
      if (!released && total < held) {
        AdmissionBudget.this.release(held - Math.max(0, total));
        held = Math.max(0, total);
      }
    }

    public long held() {
      return held;
    }

    public void release() {
      if (!released) {
        released = true;
        AdmissionBudget.this.release(held);
      }
    }
  }
}
