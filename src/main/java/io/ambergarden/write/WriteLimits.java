package io.ambergarden.write;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.FixedLimit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import com.netflix.concurrency.limits.limit.WindowedLimit;
import io.ambergarden.config.AmberConfig;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/** The writer's statement limiter from its settings. */
public final class WriteLimits {
  /**
   * Vegas judges queueing from one latency per window: single rows and 32-row batches differ more
   * than load moves them, so a window's average over at least 10 statements is the sample.
   */
  static final long WINDOW_MILLIS = 200;

  private WriteLimits() {}

  /** The writer's limiter: its limit from the settings, never below the floor. */
  public static StatementLimiter limiter(AmberConfig.Writer cfg, LongSupplier nanoClock) {
    int max = cfg.maxConcurrentStatements();
    int floor = Math.min(cfg.minConcurrentStatements(), max);
    Limit limit =
        switch (cfg.concurrencyLimit()) {
          case FIXED -> FixedLimit.of(max);
          case VEGAS -> vegas(floor, max);
        };
    return new StatementLimiter(limit, floor, nanoClock);
  }

  static Limit vegas(int min, int max) {
    VegasLimit vegas =
        VegasLimit.newBuilder()
            .initialLimit(Math.max(min, Math.min(max, 16)))
            .maxConcurrency(max)
            .build();
    return WindowedLimit.newBuilder()
        .minWindowTime(WINDOW_MILLIS, TimeUnit.MILLISECONDS)
        .maxWindowTime(WINDOW_MILLIS, TimeUnit.MILLISECONDS)
        .windowSize(10)
        .build(vegas);
  }
}
