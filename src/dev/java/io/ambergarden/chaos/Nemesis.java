package io.ambergarden.chaos;

import io.ambergarden.chaos.NemesisPlan.Fault;
import io.ambergarden.localrt.CassandraNode;
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
 * Runs the plan's faults one after another until the deadline: waits the quiet gap, injects the
 * fault, holds it, heals it, and measures the recovery: from the heal until every instance took a
 * probe event (HTTP 202) and serves it back as the device's latest event, so the whole path (HTTP,
 * Kafka, consumer, Cassandra, read) works again.
 */
final class Nemesis {
  /** What happened to one fault; times in epoch millis, -1 when it never happened. */
  record Outcome(
      Fault fault,
      long injectedAt,
      long healStartedAt,
      long healedAt,
      long recoveredAt,
      long ackedDuringHold,
      ChaosWorkload.PostStats httpBefore,
      ChaosWorkload.PostStats httpDuringHold,
      ChaosWorkload.PostStats httpUntilRecovered,
      String error) {
    long recoveryMillis() {
      return recoveredAt < 0 ? -1 : recoveredAt - healedAt;
    }
  }

  private final ChaosSystem system;
  private final AckLedger ledger;
  private final ChaosWorkload workload;
  private final Duration recoverDeadline;
  private final List<Outcome> outcomes = Collections.synchronizedList(new ArrayList<>());

  Nemesis(ChaosSystem system, AckLedger ledger, ChaosWorkload workload, Duration recoverDeadline) {
    this.system = system;
    this.ledger = ledger;
    this.workload = workload;
    this.recoverDeadline = recoverDeadline;
  }

  /** Runs faults while the next one can start before {@code until}. */
  void run(List<Fault> plan, Instant until) throws InterruptedException {
    for (Fault f : plan) {
      Instant start = Instant.now().plus(f.gapBefore());
      if (start.isAfter(until)) {
        return;
      }
      // the quiet gap between faults is the schedule itself
      TimeUnit.MILLISECONDS.sleep(f.gapBefore().toMillis());
      outcomes.add(inject(f));
    }
  }

  private Outcome inject(Fault f) throws InterruptedException {
    long injected = System.currentTimeMillis();
    long healStart = -1;
    long healed = -1;
    String error = null;
    System.out.printf("[chaos] %s: inject %s%n", Instant.now(), f);
    try {
      switch (f.kind()) {
        case KILL_NODE -> system.node(f.target()).kill();
        case PAUSE_NODE -> system.node(f.target()).pause();
        case RESTART_BROKER -> system.runtime().kafka().kill();
        case KILL_INSTANCE -> system.kill(f.target());
        case TERM_INSTANCE -> {
          Duration exit = system.terminate(f.target());
          System.out.printf(
              "[chaos] instance %d exited %d ms after SIGTERM%n", f.target(), exit.toMillis());
        }
      }
      TimeUnit.MILLISECONDS.sleep(f.hold().toMillis());
      healStart = System.currentTimeMillis();
      heal(f);
      healed = System.currentTimeMillis();
    } catch (IOException | RuntimeException e) {
      error = e.toString();
      System.out.printf("[chaos] %s failed: %s%n", f, e);
      try {
        system.healAll();
      } catch (IOException | RuntimeException again) {
        error += "; heal: " + again;
      }
      healed = System.currentTimeMillis();
    }
    long recovered = awaitRecovery(f);
    long holdEnd = healStart < 0 ? healed : healStart;
    Outcome o =
        new Outcome(
            f,
            injected,
            healStart,
            healed,
            recovered,
            ledger.ackedBetween(injected, holdEnd),
            workload.stats(injected - f.gapBefore().toMillis(), injected),
            workload.stats(injected, holdEnd),
            workload.stats(injected, recovered < 0 ? System.currentTimeMillis() : recovered),
            error);
    System.out.printf(
        "[chaos] %s: healed in %d ms, recovered %d ms later%n",
        f, healed - Math.max(healStart, injected), o.recoveryMillis());
    return o;
  }

  private void heal(Fault f) throws IOException, InterruptedException {
    switch (f.kind()) {
      case KILL_NODE -> {
        CassandraNode n = system.node(f.target());
        n.start();
        system.runtime().cluster().awaitUp(Instant.now().plus(Duration.ofMinutes(3)));
      }
      case PAUSE_NODE -> system.node(f.target()).resume();
      case RESTART_BROKER -> system.runtime().kafka().start();
      case KILL_INSTANCE, TERM_INSTANCE -> system.start(f.target());
    }
  }

  /** Epoch millis when every slot passed the probe, or -1 past the deadline. */
  long awaitRecovery(Fault f) throws InterruptedException {
    long deadline = System.currentTimeMillis() + recoverDeadline.toMillis();
    boolean[] passed = new boolean[system.instances()];
    ChaosEvent[] probes = new ChaosEvent[system.instances()];
    while (System.currentTimeMillis() < deadline) {
      boolean all = true;
      for (int slot = 0; slot < passed.length; slot++) {
        if (!passed[slot]) {
          passed[slot] = probe(slot, probes);
          all &= passed[slot];
        }
      }
      if (all) {
        return System.currentTimeMillis();
      }
      // polling the probes until the deadline; no event tells us the path is whole again
      TimeUnit.MILLISECONDS.sleep(250);
    }
    System.out.printf("[chaos] %s: not recovered within %s%n", f, recoverDeadline);
    return -1;
  }

  /** One step of a slot's probe: post a probe event once, then look for it as the latest. */
  private boolean probe(int slot, ChaosEvent[] probes) {
    String device = "chaos-probe-" + slot;
    if (probes[slot] == null) {
      ChaosEvent e = ledger.next(device);
      if (e == null) {
        return true; // the ledger is full: no more probes
      }
      ledger.sent(List.of(e), false);
      byte[] body =
          ("[" + e.json().encode() + "]").getBytes(java.nio.charset.StandardCharsets.UTF_8);
      if (!workload.postTo(slot, body).equals("202")) {
        return false; // this probe event is attempted, not acknowledged; a new one next time
      }
      ledger.acked(List.of(e), System.currentTimeMillis());
      probes[slot] = e;
    }
    try {
      HttpResponse<String> r =
          system.get(slot, "/api/v1/devices/" + device + "/latest", Duration.ofSeconds(5));
      return r.statusCode() == 200
          && probes[slot].eventId().equals(new JsonObject(r.body()).getString("eventId"));
    } catch (IOException | RuntimeException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  List<Outcome> outcomes() {
    return List.copyOf(outcomes);
  }
}
