package io.ambergarden.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.ApiRoutes;
import io.ambergarden.auth.HeldKeyReads;
import io.ambergarden.auth.Scope;
import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.LocalCodec;
import io.ambergarden.bus.PersistRequest;
import io.ambergarden.bus.PersistResult;
import io.ambergarden.chaos.ClientFaults.Outcome;
import io.ambergarden.chaos.ClientFaults.Settings;
import io.ambergarden.chaos.ClientFaults.Variant;
import io.ambergarden.chaos.history.History;
import io.ambergarden.chaos.history.Op;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import io.ambergarden.event.Event;
import io.ambergarden.event.EventParser;
import io.ambergarden.health.HealthState;
import io.ambergarden.live.LiveConnections;
import io.ambergarden.metrics.AmberMeters;
import io.ambergarden.web.Cursor;
import io.ambergarden.web.HttpBudgets;
import io.ambergarden.web.HttpVerticle;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client faults against the product's real HTTP edge (two {@link HttpVerticle}s with auth on,
 * http.body-timeout=2s), whose writer is a stand-in that records what it was asked to persist: what
 * the nemesis relies on holds at the edge before it is run against the whole system.
 */
@Timeout(120)
class ClientFaultsAtTheEdgeTest {
  static final int BATCH = 5;
  static final Settings EDGE =
      new Settings(
          Duration.ofSeconds(5),
          Duration.ofSeconds(10),
          Duration.ofSeconds(2),
          10,
          BATCH,
          Settings.loopback(250));

  @TempDir Path dir;
  Vertx vertx;
  HeldKeyReads keys;
  String key;
  final List<HttpBudgets> budgets = new ArrayList<>();
  final List<Integer> ports = new ArrayList<>();
  final Map<String, AtomicInteger> persisted = new ConcurrentHashMap<>();
  AckLedger ledger;
  History history;
  ClientFaults faults;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    LocalCodec.registerAll(vertx);
    vertx
        .eventBus()
        .<PersistRequest>consumer(
            Addresses.WRITER_PERSIST.address(),
            msg -> {
              for (Event e : msg.body().events()) {
                persisted.computeIfAbsent(e.eventId(), k -> new AtomicInteger()).incrementAndGet();
              }
              msg.reply(new PersistResult(msg.body().events().size()));
            });
    AmberConfig first = config();
    keys = new HeldKeyReads(first.access());
    key = keys.mint(Set.of(Scope.EVENTS_WRITE));
    deploy(first);
    deploy(config());
    ledger =
        new AckLedger(List.of("edge-1", "edge-2"), System.currentTimeMillis() - 600_000, 10_000, 3);
    history = new History(dir.resolve("history.ndjson.gz"), 10_000);
    faults =
        new ClientFaults(
            slot -> new InetSocketAddress("127.0.0.1", ports.get(slot)),
            2,
            key,
            ledger,
            history,
            5,
            slot -> true,
            EDGE);
  }

  /** http.port=0: each edge's server picks its port at listen; deploy() records it. */
  AmberConfig config() {
    Map<String, String> cfg = new HashMap<>();
    cfg.put("ingest.mode", "direct");
    cfg.put("http.host", "127.0.0.1");
    cfg.put("http.port", "0");
    cfg.put("http.instances", "1");
    cfg.put("http.body-timeout", "2s");
    cfg.put("auth.enabled", "true");
    cfg.put("auth.address.failures-per-minute", "2");
    return ConfigLoader.load(Map.of(), new Properties(), cfg);
  }

  /** One instance of the HTTP edge; it shares the key store (and the writer) with the other. */
  void deploy(AmberConfig config) throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    EventParser parser = io.ambergarden.EventParsers.create(config, Clock.systemUTC());
    HttpBudgets b = HttpBudgets.of(config, registry);
    HttpVerticle http =
        ApiRoutes.httpVerticle(
            config,
            parser,
            new HealthState(config.ingest().mode()),
            registry,
            new Cursor(new byte[32]),
            new LiveConnections(config.live().maxConnections(), registry),
            new AmberMeters(registry, config.kafka().topic()),
            b,
            keys.gatekeeper());
    vertx.deployVerticle(http).await(30, TimeUnit.SECONDS);
    budgets.add(b);
    ports.add(http.actualPort());
  }

  @AfterEach
  void stop() throws Exception {
    faults.close();
    history.close();
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  /** Every connection gone and every request's budget back: nothing more can be persisted. */
  void awaitSettled() {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              for (HttpBudgets b : budgets) {
                assertThat(b.connections().used()).isZero();
                assertThat(b.ingestRequests().used()).isZero();
                assertThat(b.ingestBytes().used()).isZero();
              }
            });
  }

  @Test
  void nothingOfABodyCutBeforeItEndedIsEverPersistedAndTheInstanceKeepsAccepting()
      throws Exception {
    List<Variant> cuts =
        List.of(
            Variant.HEADERS_THEN_CLOSE,
            Variant.WRONG_KEY_THEN_CLOSE,
            Variant.CUT_IN_KEY_HEADER,
            Variant.HALF_BODY_THEN_CLOSE,
            Variant.HALF_BODY_THEN_RESET);
    for (Variant v : cuts) {
      faults.run(v, 0, s -> true);
    }
    List<ChaosEvent> cut = List.copyOf(ledger.events());
    assertThat(cut).hasSize(cuts.size() * BATCH);

    Outcome after = faults.run(Variant.SLOW_WITHIN_TIMEOUT, 0, s -> true);

    assertThat(after.tries()).containsExactly(new ClientFaults.Try(0, "202", Op.Type.OK));
    awaitSettled();
    assertThat(persisted).hasSize(BATCH);
    assertThat(cut).noneSatisfy(e -> assertThat(persisted).containsKey(e.eventId()));
  }

  @Test
  void aWholeBodyWhoseClientHungUpIsPersistedAtMostOnce() throws Exception {
    faults.run(Variant.WHOLE_BODY_THEN_CLOSE, 0, s -> true);
    faults.run(Variant.WHOLE_BODY_THEN_RESET, 1, s -> true);

    awaitSettled();
    Map<String, Integer> seen = new HashMap<>();
    persisted.forEach((k, v) -> seen.put(k, v.get()));
    assertThat(seen.values()).allMatch(n -> n == 1);
    assertThat(seen.keySet()).allMatch(id -> ledger.sends(id) == 1);
  }

  @Test
  void aSlowBodyPastTheBodyTimeoutIsAnswered408AndNotPersisted() throws Exception {
    // the body spread over 3.6 s: well past the instances' 2 s, even on a loaded box
    Settings later =
        new Settings(
            EDGE.connect(),
            EDGE.read(),
            Duration.ofSeconds(3),
            EDGE.slowChunks(),
            BATCH,
            EDGE.wrongKeySource());
    Outcome o;
    try (ClientFaults f =
        new ClientFaults(
            slot -> new InetSocketAddress("127.0.0.1", ports.get(slot)),
            2,
            key,
            ledger,
            history,
            5,
            slot -> true,
            later)) {
      o = f.run(Variant.SLOW_PAST_TIMEOUT, 1, s -> true);
    }

    assertThat(o.tries()).containsExactly(new ClientFaults.Try(1, "408", Op.Type.FAIL));
    awaitSettled();
    assertThat(persisted).isEmpty();
    assertThat(ledger.sentCount()).isEqualTo(BATCH);
    assertThat(ledger.ackedCount()).isZero();
  }

  @Test
  void aResendToTheOtherInstancePersistsTheSameEventsThereAgain() throws Exception {
    Outcome o = faults.run(Variant.RESEND_AFTER_ANSWER, 0, s -> true);

    assertThat(o.key()).isEqualTo("resend-after-answer: 202 then 202");
    awaitSettled();
    assertThat(persisted).hasSize(BATCH);
    assertThat(persisted.values()).allMatch(n -> n.get() == 2);
    assertThat(ledger.ackedCount()).isEqualTo(BATCH);
    assertThat(ledger.duplicatesSent()).isEqualTo(BATCH);
  }

  @Test
  void wrongKeysThrottleEveryRequestFromTheirAddressButNotTheWorkloadsOwn() throws Exception {
    // auth.address.failures-per-minute=2: three wrong keys from 127.0.0.250 use it up
    for (int i = 0; i < 3; i++) {
      faults.run(Variant.WRONG_KEY_THEN_CLOSE, 0, s -> true);
    }
    awaitSettled();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> statusFrom(EDGE.wrongKeySource().getHostAddress(), key) == 429);

    assertThat(statusFrom("127.0.0.1", key)).isEqualTo(202);
  }

  /** The status of a valid one-event post from {@code source}. */
  int statusFrom(String source, String apiKey) throws Exception {
    ChaosEvent e = ledger.next(null);
    RawRequest req =
        RawRequest.of(new InetSocketAddress("127.0.0.1", ports.get(0)), apiKey, List.of(e));
    try (Socket s = new Socket()) {
      s.bind(new InetSocketAddress(source, 0));
      s.connect(new InetSocketAddress("127.0.0.1", ports.get(0)), 5000);
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(req.head());
      out.write(req.body());
      out.flush();
      InputStream in = s.getInputStream();
      return Integer.parseInt(RawExchange.readStatus(in, -2));
    }
  }
}
