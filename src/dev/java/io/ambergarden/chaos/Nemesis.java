package io.ambergarden.chaos;

import io.ambergarden.bench.BenchService;
import io.ambergarden.chaos.NemesisPlan.Fault;
import io.ambergarden.chaos.NemesisPlan.Shape;
import io.ambergarden.chaos.NemesisPlan.Step;
import io.ambergarden.metrics.PrometheusText;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the plan's steps one after another until the deadline: waits the quiet gap, injects the
 * step's faults (together, or the second as the first heals), holds them, heals them, and measures
 * the recovery: from the heal until every instance took a probe event (HTTP 202) and serves it back
 * as the device's latest event, so the whole path (HTTP, Kafka, consumer, Cassandra, read) works
 * again.
 */
final class Nemesis {
  /** What happened to one step; times in epoch millis, -1 when it never happened. */
  record Outcome(
      Step step,
      List<String> targets,
      List<String> probes,
      boolean probesMatched,
      long injectedAt,
      long healStartedAt,
      long healedAt,
      long recoveredAt,
      long ackedDuringHold,
      ChaosWorkload.PostStats httpBefore,
      ChaosWorkload.PostStats httpDuringHold,
      ChaosWorkload.PostStats httpUntilRecovered,
      List<ChaosWorkload.PostStats> httpPerFault,
      String error) {
    long recoveryMillis() {
      return recoveredAt < 0 ? -1 : recoveredAt - healedAt;
    }
  }

  /** What a stuck instance's consumer and writer were doing, from its scrape. */
  private static final List<String> STUCK_METRICS =
      List.of(
          "amber_kafka_consumer_partitions",
          "amber_kafka_consumer_lag",
          "amber_kafka_consumer_stalled",
          "amber_writes_in_flight",
          "amber_writer_statements_waiting");

  private final ChaosSystem system;
  private final FaultActions actions;
  private final AckLedger ledger;
  private final ChaosWorkload workload;
  private final Duration recoverDeadline;
  private final List<Outcome> outcomes = Collections.synchronizedList(new ArrayList<>());

  Nemesis(
      ChaosSystem system,
      FaultActions actions,
      AckLedger ledger,
      ChaosWorkload workload,
      Duration recoverDeadline) {
    this.system = system;
    this.actions = actions;
    this.ledger = ledger;
    this.workload = workload;
    this.recoverDeadline = recoverDeadline;
  }

  /** Runs steps while the next one can start before {@code until}. */
  void run(List<Step> plan, Instant until) throws InterruptedException {
    for (Step s : plan) {
      Instant start = Instant.now().plus(s.gapBefore());
      if (start.isAfter(until)) {
        return;
      }
      FaultActions.sleep(s.gapBefore());
      outcomes.add(run(s));
    }
  }

  private Outcome run(Step s) throws InterruptedException {
    long injected = System.currentTimeMillis();
    long healStart = -1;
    long healed = -1;
    long struck = -1;
    // per fault of the step: from when it was in force until its heal began
    long[] from = {-1, -1};
    long[] to = {-1, -1};
    String error = null;
    List<FaultActions.Active> active = new ArrayList<>();
    System.out.printf("[chaos] %s: step %s%n", Instant.now(), s);
    try {
      Fault first = s.faults().get(0);
      switch (s.shape()) {
        case SINGLE -> {
          FaultActions.Active a = inject(first, active);
          struck = System.currentTimeMillis();
          hold(List.of(a), first.hold());
        }
        case TOGETHER -> {
          Fault second = s.faults().get(1);
          List<FaultActions.Active> both = List.of(inject(first, active), inject(second, active));
          struck = System.currentTimeMillis();
          hold(both, first.hold().compareTo(second.hold()) >= 0 ? first.hold() : second.hold());
        }
        case AFTERSHOCK -> {
          FaultActions.Active a = inject(first, active);
          struck = System.currentTimeMillis();
          from[0] = struck;
          hold(List.of(a), first.hold());
          to[0] = System.currentTimeMillis();
          a.heal();
          System.out.printf("[chaos] %s healed; the aftershock strikes%n", first);
          FaultActions.Active b = inject(s.faults().get(1), active);
          from[1] = System.currentTimeMillis();
          hold(List.of(b), s.faults().get(1).hold());
        }
      }
      healStart = System.currentTimeMillis();
      for (int i = 0; i < s.faults().size(); i++) {
        from[i] = from[i] < 0 ? struck : from[i];
        to[i] = to[i] < 0 ? healStart : to[i];
      }
      for (int i = active.size() - 1; i >= (s.shape() == Shape.AFTERSHOCK ? 1 : 0); i--) {
        active.get(i).heal();
      }
      error = leftoverCuts();
      healed = System.currentTimeMillis();
    } catch (Exception e) {
      error = e.toString();
      System.out.printf("[chaos] %s failed: %s%n", s, e);
      try {
        system.healAll();
      } catch (Exception again) {
        error += "; heal: " + again;
      }
      healed = System.currentTimeMillis();
    }
    Recovery recovery = awaitRecovery(s);
    long recovered = recovery.at();
    if (recovery.stuck() != null) {
      error = (error == null ? "" : error + "; ") + "not recovered: " + recovery.stuck();
    }
    long holdEnd = healStart < 0 ? healed : healStart;
    // requests sent once every fault of the step was in force
    long holdStart = struck < 0 ? injected : struck;
    Outcome o =
        new Outcome(
            s,
            active.stream().map(FaultActions.Active::target).toList(),
            active.stream().map(FaultActions.Active::probes).filter(p -> !p.isEmpty()).toList(),
            active.stream().allMatch(FaultActions.Active::probesMatched),
            injected,
            healStart,
            healed,
            recovered,
            ledger.ackedBetween(injected, holdEnd),
            workload.stats(injected - s.gapBefore().toMillis(), injected),
            workload.stats(holdStart, holdEnd),
            workload.stats(injected, recovered < 0 ? System.currentTimeMillis() : recovered),
            perFault(s, from, to),
            error);
    System.out.printf(
        "[chaos] #%d on %s: healed in %d ms, recovered %d ms later; direct 202s during each fault %s%n",
        s.index(),
        o.targets(),
        healed - Math.max(healStart, injected),
        o.recoveryMillis(),
        o.httpPerFault().stream()
            .map(p -> p == null ? "-" : Integer.toString(p.directAcks()))
            .toList());
    return o;
  }

  /** Each fault's HTTP figures while it alone was known to be in force; null if it never was. */
  private List<ChaosWorkload.PostStats> perFault(Step s, long[] from, long[] to) {
    List<ChaosWorkload.PostStats> out = new ArrayList<>();
    for (int i = 0; i < s.faults().size(); i++) {
      out.add(from[i] < 0 || to[i] < 0 ? null : workload.stats(from[i], to[i]));
    }
    return out;
  }

  private FaultActions.Active inject(Fault f, List<FaultActions.Active> active) throws Exception {
    FaultActions.Active a = actions.inject(f);
    active.add(a);
    System.out.printf(
        "[chaos] %s: injected %s on %s %s%n", Instant.now(), f.kind(), a.target(), a.probes());
    return a;
  }

  /** Holds the faults, each told when half the hold has passed. */
  private static void hold(List<FaultActions.Active> faults, Duration hold)
      throws InterruptedException {
    Duration half = hold.dividedBy(2);
    FaultActions.sleep(half);
    faults.forEach(FaultActions.Active::midway);
    FaultActions.sleep(hold.minus(half));
  }

  /**
   * Every fault of a step is healed before the next: a cut still in force is the harness's bug, and
   * would pass for the product's failure to recover. Reported, and flushed.
   */
  private String leftoverCuts() {
    List<String> left = system.firewall().activeRules();
    if (left.isEmpty()) {
      return null;
    }
    System.out.printf("[chaos] cuts left after the heal, flushed: %s%n", left);
    system.firewall().healAll();
    return "cuts left after the heal: " + left;
  }

  /** When every slot passed the probe (epoch millis, -1 past the deadline), else why not. */
  record Recovery(long at, String stuck) {}

  /** Polls every slot's probe until all pass or the deadline; says what the stuck ones saw. */
  Recovery awaitRecovery(Step s) throws InterruptedException {
    long deadline = System.currentTimeMillis() + recoverDeadline.toMillis();
    String[] stuck = new String[system.instances()];
    java.util.Arrays.fill(stuck, "not probed");
    ChaosEvent[] probes = new ChaosEvent[system.instances()];
    while (System.currentTimeMillis() < deadline) {
      boolean all = true;
      for (int slot = 0; slot < stuck.length; slot++) {
        if (stuck[slot] != null) {
          stuck[slot] = probe(slot, probes);
          all &= stuck[slot] == null;
        }
      }
      if (all) {
        return new Recovery(System.currentTimeMillis(), null);
      }
      // polling the probes until the deadline; no event tells us the path is whole again
      TimeUnit.MILLISECONDS.sleep(250);
    }
    List<String> why = new ArrayList<>();
    for (int slot = 0; slot < stuck.length; slot++) {
      if (stuck[slot] != null) {
        why.add("instance " + slot + ": " + stuck[slot] + "; " + state(slot));
        printLogTail(slot);
      }
    }
    String stuckText = String.join(" / ", why);
    System.out.printf("[chaos] %s: not recovered within %s: %s%n", s, recoverDeadline, stuckText);
    return new Recovery(-1, stuckText);
  }

  /** A stuck instance's readiness and consumer figures, for the report. */
  private String state(int slot) {
    BenchService instance = system.slot(slot);
    if (instance == null) {
      return "no instance in the slot";
    }
    try {
      HttpResponse<String> ready = system.get(slot, "/health/ready", Duration.ofSeconds(5));
      String scrape = instance.metrics();
      StringBuilder out = new StringBuilder("ready ").append(ready.body());
      for (String m : STUCK_METRICS) {
        out.append(", ").append(m).append(' ').append(PrometheusText.sum(scrape, m));
      }
      return out.toString();
    } catch (IOException | RuntimeException e) {
      return "no answer: " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  /** The stuck instance's last warnings, on the run's output: CI keeps nothing else of it. */
  private void printLogTail(int slot) {
    BenchService s = system.slot(slot);
    if (s == null) {
      return;
    }
    System.out.printf("[chaos] instance %d's last warnings:%n", slot);
    try {
      for (String line : s.logTail(12, l -> l.contains(" WARN ") || l.contains(" ERROR "))) {
        System.out.println("[chaos]   " + (line.length() > 300 ? line.substring(0, 300) : line));
      }
    } catch (java.io.UncheckedIOException e) {
      System.out.println("[chaos]   its log cannot be read: " + e.getCause());
    }
  }

  /**
   * One step of a slot's probe: post a probe event once, then look for it as the latest. Null when
   * it is served; else what was seen instead.
   */
  private String probe(int slot, ChaosEvent[] probes) {
    String device = "chaos-probe-" + slot;
    if (probes[slot] == null) {
      ChaosEvent e = ledger.next(device);
      if (e == null) {
        return null; // the ledger is full: no more probes
      }
      ledger.sent(List.of(e), false);
      byte[] body =
          ("[" + e.json().encode() + "]").getBytes(java.nio.charset.StandardCharsets.UTF_8);
      String posted = workload.postTo(slot, body);
      if (!posted.equals("202")) {
        return "probe post answered " + posted; // attempted, not acknowledged; a new one next time
      }
      ledger.acked(List.of(e), System.currentTimeMillis());
      probes[slot] = e;
    }
    String wanted = probes[slot].eventId();
    try {
      HttpResponse<String> r =
          system.get(slot, "/api/v1/devices/" + device + "/latest", Duration.ofSeconds(5));
      if (r.statusCode() != 200) {
        // a problem's detail says which refusal: the store known down, a read failed, ...
        String body = r.body() == null ? "" : r.body();
        return "latest of the probe "
            + wanted
            + " answered "
            + r.statusCode()
            + " "
            + body.substring(0, Math.min(body.length(), 240));
      }
      String seen = new JsonObject(r.body()).getString("eventId");
      return wanted.equals(seen) ? null : "latest is " + seen + ", not the probe " + wanted;
    } catch (IOException | RuntimeException e) {
      return "latest of the probe " + wanted + " failed: " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  List<Outcome> outcomes() {
    return List.copyOf(outcomes);
  }
}
