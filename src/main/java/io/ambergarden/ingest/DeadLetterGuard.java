package io.ambergarden.ingest;

/**
 * Stops a bad deploy from dead-lettering everything: once the share of poison records among the
 * last {@code window} records exceeds {@code maxRatio} (after at least {@code minSamples}), it
 * trips and stays tripped until the process restarts. One poison record alone never trips it while
 * {@code minSamples * maxRatio >= 1} (the defaults: 50 and 0.5).
 */
public final class DeadLetterGuard {
  private final boolean[] ring;
  private final int minSamples;
  private final double maxRatio;
  private int next;
  private int samples;
  private int poison;
  private boolean tripped;

  public DeadLetterGuard(int window, int minSamples, double maxRatio) {
    if (window < 1 || minSamples < 1 || minSamples > window || maxRatio < 0 || maxRatio > 1) {
      throw new IllegalArgumentException("bad guard settings");
    }
    this.ring = new boolean[window];
    this.minSamples = minSamples;
    this.maxRatio = maxRatio;
  }

  /** Records one record's outcome; returns true when the guard is (now) tripped. */
  public boolean record(boolean isPoison) {
    if (tripped) {
      return true;
    }
    if (samples == ring.length) {
      if (ring[next]) {
        poison--;
      }
    } else {
      samples++;
    }
    ring[next] = isPoison;
    if (isPoison) {
      poison++;
    }
    next = (next + 1) % ring.length;
    tripped = samples >= minSamples && (double) poison / samples > maxRatio;
    return tripped;
  }

  public boolean tripped() {
    return tripped;
  }

  public double ratio() {
    return samples == 0 ? 0 : (double) poison / samples;
  }
}
