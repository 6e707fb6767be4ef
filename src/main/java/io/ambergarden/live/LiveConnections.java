package io.ambergarden.live;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicInteger;

/** The process-wide WebSocket client count and its cap, shared by every HTTP verticle instance. */
public final class LiveConnections {
  private final int max;
  private final AtomicInteger open = new AtomicInteger();
  private final Counter slowClosed;
  private final Counter refused;

  public LiveConnections(int max, MeterRegistry registry) {
    this.max = max;
    Gauge.builder("amber.live.clients", open, AtomicInteger::get)
        .description("Open live-feed WebSockets")
        .register(registry);
    this.slowClosed =
        Counter.builder("amber.live.disconnects")
            .tag("reason", "slow")
            .description("Live-feed clients closed by the server")
            .register(registry);
    this.refused =
        Counter.builder("amber.live.refused")
            .description("Live-feed connections refused at the cap")
            .register(registry);
  }

  /** Takes a slot; false at the cap. */
  public boolean tryOpen() {
    while (true) {
      int n = open.get();
      if (n >= max) {
        refused.increment();
        return false;
      }
      if (open.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  public void closed() {
    open.decrementAndGet();
  }

  public void slowConsumerClosed() {
    slowClosed.increment();
  }

  public int open() {
    return open.get();
  }
}
