package io.ambergarden.bench;

import io.ambergarden.auth.RateLimits;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The rate limiter alone, in this process: {@link RateLimits} against {@link MonitorLru}, one
 * synchronized LRU map of unsynchronized buckets (the design RateLimits replaced), measured in
 * alternating phases so both see the same background load. Each phase runs 1, 2 (the default
 * http.instances) or 4 threads acquiring for
 *
 * <ul>
 *   <li>steady callers: {@link #ACTIVE} callers, all within the bound;
 *   <li>churn: a new caller on every call, {@link #BOUND} buckets at most, so every call evicts.
 * </ul>
 *
 * It reports thread CPU per acquire and acquires per second of wall time, and the median of the
 * rounds' ratios RateLimits / MonitorLru. Part of {@link AuthCostBench}; alone with the argument
 * {@code limiter}.
 */
final class RateLimitCost {
  static final int ROUNDS = Integer.getInteger("bench.limiter.rounds", 7);
  static final int CALLS = Integer.getInteger("bench.limiter.calls", 2_000_000);
  static final int ACTIVE = 1_000;
  static final int BOUND = 10_000;
  static final int RATE = 1_000_000;

  private interface Limiter {
    long acquire(String bucket, int ratePerSecond);
  }

  /** One phase: CPU nanoseconds per acquire (all threads) and acquires per second of wall time. */
  private record Phase(double cpuNanosPerCall, double callsPerSecond) {}

  private RateLimitCost() {}

  static void run() throws Exception {
    String[] steady = names("steady-", ACTIVE);
    String[] churn = names("churn-", 1_000_000);
    Map<String, List<Phase[]>> results = new LinkedHashMap<>();
    System.out.printf(
        "rate limiter alone: %d rounds, %,d acquires per thread per phase%n", ROUNDS, CALLS);
    for (int round = 0; round < ROUNDS; round++) {
      boolean oldFirst = round % 2 == 0;
      for (int threads : new int[] {1, 2, 4}) {
        for (boolean isChurn : new boolean[] {false, true}) {
          String[] callers = isChurn ? churn : steady;
          Phase first = phase(oldFirst ? new MonitorLru(BOUND) : newest(), threads, callers);
          Phase second = phase(oldFirst ? newest() : new MonitorLru(BOUND), threads, callers);
          Phase[] pair = oldFirst ? new Phase[] {first, second} : new Phase[] {second, first};
          results
              .computeIfAbsent(
                  (isChurn ? "churn (every call evicts)" : "steady " + ACTIVE + " callers")
                      + ", "
                      + threads
                      + " thread"
                      + (threads > 1 ? "s" : ""),
                  k -> new ArrayList<>())
              .add(pair);
        }
      }
      System.out.printf("round %d done%n", round + 1);
    }
    System.out.println();
    System.out.println(
        "| workload | CPU ns/acquire synchronized LRU | RateLimits (Caffeine) | ratio |"
            + " acquires/s synchronized LRU | RateLimits | ratio |");
    System.out.println("|---|---|---|---|---|---|---|");
    for (Map.Entry<String, List<Phase[]>> e : results.entrySet()) {
      List<Phase[]> pairs = e.getValue();
      System.out.printf(
          "| %s | %.0f | %.0f | %.2f | %,.0f | %,.0f | %.2f |%n",
          e.getKey(),
          median(pairs, p -> p[0].cpuNanosPerCall()),
          median(pairs, p -> p[1].cpuNanosPerCall()),
          median(pairs, p -> p[1].cpuNanosPerCall() / p[0].cpuNanosPerCall()),
          median(pairs, p -> p[0].callsPerSecond()),
          median(pairs, p -> p[1].callsPerSecond()),
          median(pairs, p -> p[1].callsPerSecond() / p[0].callsPerSecond()));
    }
    System.out.println("(ratio: median of the rounds' ratios RateLimits / synchronized LRU)");
  }

  private static Limiter newest() {
    RateLimits limits = new RateLimits(BOUND, System::nanoTime);
    return limits::acquire;
  }

  private static String[] names(String prefix, int n) {
    String[] out = new String[n];
    for (int i = 0; i < n; i++) {
      out[i] = "API_KEY:" + prefix + i;
    }
    return out;
  }

  private static Phase phase(Limiter limiter, int threads, String[] callers) throws Exception {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    AtomicLong cpu = new AtomicLong();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int seed = t;
      Thread th =
          new Thread(
              () -> {
                SplittableRandom random = new SplittableRandom(seed);
                int offset = seed * (callers.length / 4);
                try {
                  start.await();
                } catch (InterruptedException e) {
                  return;
                }
                long c0 = mx.getCurrentThreadCpuTime();
                for (int i = 0; i < CALLS; i++) {
                  String caller =
                      callers.length > CALLS
                          ? callers[(offset + i) % callers.length]
                          : callers[random.nextInt(callers.length)];
                  if (limiter.acquire(caller, RATE) < 0) {
                    throw new IllegalStateException();
                  }
                }
                cpu.addAndGet(mx.getCurrentThreadCpuTime() - c0);
              });
      th.start();
      running.add(th);
    }
    long t0 = System.nanoTime();
    start.countDown();
    for (Thread th : running) {
      th.join();
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    long calls = (long) CALLS * threads;
    return new Phase(cpu.get() / (double) calls, calls / seconds);
  }

  private static double median(
      List<Phase[]> pairs, java.util.function.ToDoubleFunction<Phase[]> f) {
    double[] v = pairs.stream().mapToDouble(f).sorted().toArray();
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

  /** One synchronized LRU map of token buckets, as the limiter was before RateLimits. */
  static final class MonitorLru implements Limiter {
    private final Map<String, Bucket> buckets;

    MonitorLru(int maxBuckets) {
      this.buckets =
          new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Bucket> eldest) {
              return size() > maxBuckets;
            }
          };
    }

    @Override
    public synchronized long acquire(String bucket, int ratePerSecond) {
      long now = System.nanoTime();
      Bucket b = buckets.get(bucket);
      if (b == null || b.rate != ratePerSecond) {
        b = new Bucket(ratePerSecond, now);
        buckets.put(bucket, b);
      }
      return b.take(now);
    }
  }

  /** TokenBucket's arithmetic without a lock of its own (the map's monitor guarded it). */
  private static final class Bucket {
    private final int rate;
    private double tokens;
    private long last;

    Bucket(int rate, long now) {
      this.rate = rate;
      this.tokens = rate;
      this.last = now;
    }

    long take(long now) {
      if (now > last) {
        tokens = Math.min(rate, tokens + (now - last) * (double) rate / 1e9);
        last = now;
      }
      if (tokens >= 1) {
        tokens -= 1;
        return 0;
      }
      return (long) Math.ceil((1 - tokens) * 1e9 / rate);
    }
  }
}
