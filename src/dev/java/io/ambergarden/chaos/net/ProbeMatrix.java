package io.ambergarden.chaos.net;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Checks that a partition cut what it should and nothing else: one probe per link, each compared
 * with what the shape expects. Probes run in parallel (a dropped link costs a whole timeout).
 */
public final class ProbeMatrix {
  /** At most this many probes at once; more wait their turn. */
  static final int MAX_PARALLEL = 8;

  /** A link, whether it should work, and how to probe it. */
  public record Expectation(String link, boolean reachable, Supplier<Probe.Outcome> probe) {}

  public record Result(String link, boolean expected, Probe.Outcome observed) {
    public boolean matches() {
      return expected == observed.reached();
    }

    @Override
    public String toString() {
      return link
          + ": expected "
          + (expected ? "reachable" : "cut")
          + ", "
          + observed
          + (matches() ? "" : "  <-- MISMATCH");
    }
  }

  public record Report(List<Result> results) {
    public boolean ok() {
      return results.stream().allMatch(Result::matches);
    }

    public List<Result> mismatches() {
      return results.stream().filter(r -> !r.matches()).toList();
    }

    @Override
    public String toString() {
      return results.stream().map(Result::toString).collect(Collectors.joining("\n"));
    }
  }

  private ProbeMatrix() {}

  /**
   * Every ordered pair of the shape's nodes, probed by a TCP connect from node a's address to node
   * b's {@code port} (e.g. the storage port every node listens on).
   */
  public static List<Expectation> forShape(
      PartitionShape shape, IntFunction<InetAddress> addressOf, int port, Duration timeout) {
    List<Expectation> list = new ArrayList<>();
    for (int a : shape.nodes()) {
      for (int b : shape.nodes()) {
        if (a != b) {
          InetAddress from = addressOf.apply(a);
          InetSocketAddress to = new InetSocketAddress(addressOf.apply(b), port);
          list.add(
              new Expectation(
                  "node " + a + " -> node " + b + ":" + port,
                  shape.reachable(a, b),
                  () -> Probe.connect(from, to, timeout)));
        }
      }
    }
    return list;
  }

  /** Runs every probe and compares. */
  public static Report check(Collection<Expectation> expectations) {
    if (expectations.isEmpty()) {
      return new Report(List.of());
    }
    ExecutorService pool =
        Executors.newFixedThreadPool(Math.min(MAX_PARALLEL, expectations.size()));
    try {
      List<Future<Probe.Outcome>> outcomes = new ArrayList<>();
      for (Expectation e : expectations) {
        outcomes.add(pool.submit(() -> e.probe().get()));
      }
      List<Result> results = new ArrayList<>();
      int i = 0;
      for (Expectation e : expectations) {
        results.add(new Result(e.link(), e.reachable(), outcome(outcomes.get(i++))));
      }
      return new Report(List.copyOf(results));
    } finally {
      pool.shutdownNow();
    }
  }

  private static Probe.Outcome outcome(Future<Probe.Outcome> f) {
    try {
      return f.get();
    } catch (ExecutionException e) {
      return Probe.Outcome.FAILED;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Probe.Outcome.FAILED;
    }
  }
}
