package io.ambergarden.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ambergarden.chaos.ClientFaults.Outcome;
import io.ambergarden.chaos.ClientFaults.Settings;
import io.ambergarden.chaos.ClientFaults.Variant;
import io.ambergarden.chaos.history.History;
import io.ambergarden.chaos.history.HistoryChecker;
import io.ambergarden.chaos.history.Op;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Each fault against real Vert.x servers on ephemeral loopback ports that record what came. */
@Timeout(60)
class ClientFaultsTest {
  static final String KEY = "ak_test.0123456789abcdef";
  static final Duration WAIT = Duration.ofSeconds(10);
  static final int BATCH = 5;
  static final Settings FAST =
      new Settings(
          Duration.ofSeconds(5),
          Duration.ofSeconds(10),
          Duration.ofSeconds(4),
          10,
          BATCH,
          Settings.loopback(250));

  @TempDir Path dir;
  Vertx vertx;
  RecordingHttpServer a;
  RecordingHttpServer b;
  AckLedger ledger;
  History history;
  ClientFaults faults;
  InetSocketAddress down;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    a = new RecordingHttpServer(vertx);
    b = new RecordingHttpServer(vertx);
    try (ServerSocket s = new ServerSocket(0)) {
      down = new InetSocketAddress("127.0.0.1", s.getLocalPort()); // closed again: refuses
    }
    ledger = new AckLedger(List.of("d1", "d2", "d3"), 1_700_000_000_000L, 10_000, 7);
    history = new History(dir.resolve("history.ndjson.gz"), 10_000);
    faults = faults(FAST);
  }

  ClientFaults faults(Settings settings) {
    return new ClientFaults(
        slot -> slot == 0 ? a.address() : slot == 1 ? b.address() : down,
        3,
        KEY,
        ledger,
        history,
        42,
        slot -> slot == 0,
        settings);
  }

  @AfterEach
  void stop() throws Exception {
    faults.close();
    history.close();
    a.close();
    b.close();
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  List<Op> ops() throws IOException {
    history.close();
    List<Op> out = new ArrayList<>();
    History.replay(history.file(), out::add);
    return out;
  }

  RecordingHttpServer.Seen onlyConnection(RecordingHttpServer server) {
    await().atMost(WAIT).until(() -> server.connections().size() == 1);
    RecordingHttpServer.Seen seen = server.connections().get(0);
    await().atMost(WAIT).until(() -> seen.closed);
    return seen;
  }

  List<ChaosEvent> made() {
    return List.copyOf(ledger.events());
  }

  byte[] bodyOf(List<ChaosEvent> events) {
    List<ChaosEvent> sorted = new ArrayList<>(events);
    sorted.sort(java.util.Comparator.comparingLong(ChaosEvent::ts));
    return RawRequest.body(sorted);
  }

  void assertOneCompletedPost(List<Op> ops, int slot, Op.Type type, String outcome) {
    assertThat(ops).hasSize(2);
    assertThat(ops.get(0).type()).isEqualTo(Op.Type.INVOKE);
    assertThat(ops.get(0).f()).isEqualTo(Op.Fn.POST);
    assertThat(ops.get(0).slot()).isEqualTo(slot);
    assertThat(ops.get(0).process()).isGreaterThanOrEqualTo(ClientFaults.FIRST_PROCESS);
    assertThat(ops.get(0).written()).extracting(Op.Written::eventId).hasSize(BATCH);
    assertThat(ops.get(1).type()).isEqualTo(type);
    assertThat(ops.get(1).process()).isEqualTo(ops.get(0).process());
    assertThat(ops.get(1).outcome()).isEqualTo(outcome);
  }

  @Test
  void aCloseDuringAuthenticationSendsTheKeyButNoBodyAndMarksNothingSent() throws IOException {
    Outcome o = faults.run(Variant.HEADERS_THEN_CLOSE, 0, s -> true);

    RecordingHttpServer.Seen seen = onlyConnection(a);
    assertThat(seen.headers.get("X-API-Key")).isEqualTo(KEY);
    assertThat(seen.contentLength()).isEqualTo(bodyOf(made()).length);
    assertThat(seen.body()).isEmpty();
    assertThat(seen.ended).isFalse();
    assertThat(o.tries()).containsExactly(new ClientFaults.Try(0, "cut", Op.Type.FAIL));
    assertThat(made())
        .hasSize(BATCH)
        .allSatisfy(e -> assertThat(ledger.sends(e.eventId())).isZero());
    assertThat(ledger.ackedCount()).isZero();
    assertOneCompletedPost(ops(), 0, Op.Type.FAIL, "client-fault headers-then-close: cut");
    assertThat(ops().get(0).direct()).isTrue();
  }

  @Test
  void aWrongKeyComesFromItsOwnSourceAddressSoItsFailuresNeverThrottleTheWorkload()
      throws IOException {
    faults.run(Variant.WRONG_KEY_THEN_CLOSE, 1, s -> true);

    RecordingHttpServer.Seen seen = onlyConnection(b);
    assertThat(seen.remoteHost).isEqualTo("127.0.0.250");
    assertThat(seen.headers.get("X-API-Key")).isEqualTo(KEY.substring(0, KEY.length() / 2));
    assertThat(seen.body()).isEmpty();
    assertThat(ledger.sentCount()).isZero();
    assertOneCompletedPost(ops(), 1, Op.Type.FAIL, "client-fault wrong-key-then-close: cut");
  }

  @Test
  void aCutInsideTheKeyHeaderNeverGivesTheServerARequest() throws IOException {
    faults.run(Variant.CUT_IN_KEY_HEADER, 0, s -> true);

    RecordingHttpServer.Seen seen = onlyConnection(a);
    assertThat(seen.headers).isNull();
    assertThat(ledger.sentCount()).isZero();
    assertOneCompletedPost(ops(), 0, Op.Type.FAIL, "client-fault cut-in-key-header: cut");
  }

  @Test
  void aCloseMidBodyDeliversHalfTheDeclaredBytesAndLeavesTheEventsAttemptedNotAcknowledged()
      throws IOException {
    faults.run(Variant.HALF_BODY_THEN_CLOSE, 0, s -> true);

    RecordingHttpServer.Seen seen = onlyConnection(a);
    byte[] whole = bodyOf(made());
    assertThat(seen.contentLength()).isEqualTo(whole.length);
    assertThat(seen.body()).isEqualTo(java.util.Arrays.copyOf(whole, whole.length / 2));
    assertThat(seen.ended).isFalse();
    assertThat(made()).allSatisfy(e -> assertThat(ledger.sends(e.eventId())).isEqualTo(1));
    assertThat(ledger.ackedCount()).isZero();
    assertOneCompletedPost(ops(), 0, Op.Type.FAIL, "client-fault half-body-then-close: cut");
  }

  @Test
  void aResetMidBodyDeliversAtMostHalfTheBody() throws IOException {
    faults.run(Variant.HALF_BODY_THEN_RESET, 0, s -> true);

    RecordingHttpServer.Seen seen = onlyConnection(a);
    assertThat(seen.body().length).isLessThanOrEqualTo(bodyOf(made()).length / 2);
    assertThat(seen.ended).isFalse();
    assertThat(ledger.sentCount()).isEqualTo(BATCH);
    assertOneCompletedPost(ops(), 0, Op.Type.FAIL, "client-fault half-body-then-reset: cut");
  }

  @Test
  void aCloseAfterTheBodyDeliversItWholeButLeavesTheOutcomeUnknown() throws IOException {
    faults.run(Variant.WHOLE_BODY_THEN_CLOSE, 0, s -> true);

    RecordingHttpServer.Seen seen = onlyConnection(a);
    assertThat(seen.body()).isEqualTo(bodyOf(made()));
    assertThat(seen.ended).isTrue();
    assertThat(ledger.sentCount()).isEqualTo(BATCH);
    assertThat(ledger.ackedCount()).as("the 202 was never read").isZero();
    assertOneCompletedPost(ops(), 0, Op.Type.INFO, "client-fault whole-body-then-close: cut");
  }

  @Test
  void aResetAfterTheBodyLeavesTheOutcomeUnknown() throws IOException {
    Outcome o = faults.run(Variant.WHOLE_BODY_THEN_RESET, 0, s -> true);

    onlyConnection(a);
    assertThat(o.tries()).containsExactly(new ClientFaults.Try(0, "cut", Op.Type.INFO));
    assertThat(ledger.sentCount()).isEqualTo(BATCH);
    assertThat(ledger.ackedCount()).isZero();
  }

  @Test
  void aSlowClientWithinTheBodyTimeoutSendsChunksSpacedInTimeAndIsAcknowledged()
      throws IOException {
    Outcome o = faults.run(Variant.SLOW_WITHIN_TIMEOUT, 0, s -> true);

    RecordingHttpServer.Seen seen = onlyConnection(a);
    assertThat(seen.body()).isEqualTo(bodyOf(made()));
    List<Long> chunks = seen.chunkNanos();
    // ten chunks over an eighth of the 4 s body timeout: nine pauses of ~55 ms (a loaded box may
    // hand the server two of them at once)
    assertThat(chunks).hasSizeGreaterThanOrEqualTo(3);
    assertThat(chunks.get(chunks.size() - 1) - chunks.get(0))
        .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
    assertThat(o.tries()).containsExactly(new ClientFaults.Try(0, "202", Op.Type.OK));
    assertThat(made()).allSatisfy(e -> assertThat(ledger.isAcked(e.eventId())).isTrue());
    assertOneCompletedPost(ops(), 0, Op.Type.OK, "client-fault slow-within-timeout: 202");
  }

  @Test
  void aSlowClientStopsSendingOnceTheServerAnswersEarlyAndTakesItsAnswer() throws IOException {
    // the server cuts the body halfway, as the product does past http.body-timeout
    a.answerAfterBytes = bodyOfNextBatch() / 2;
    a.earlyStatus = 408;

    Outcome o = faults.run(Variant.SLOW_PAST_TIMEOUT, 0, s -> true);

    RecordingHttpServer.Seen seen = onlyConnection(a);
    assertThat(seen.answered).isEqualTo(408);
    assertThat(seen.ended).isFalse();
    assertThat((long) seen.body().length).isLessThan(seen.contentLength());
    assertThat(o.tries()).containsExactly(new ClientFaults.Try(0, "408", Op.Type.FAIL));
    assertThat(ledger.sentCount()).isEqualTo(BATCH);
    assertThat(ledger.ackedCount()).isZero();
    assertOneCompletedPost(ops(), 0, Op.Type.FAIL, "client-fault slow-past-timeout: 408");
  }

  /** The body length of the next batch: batches of this ledger differ by a few bytes at most. */
  int bodyOfNextBatch() {
    AckLedger probe = new AckLedger(List.of("d1", "d2", "d3"), 1_700_000_000_000L, 10_000, 7);
    List<ChaosEvent> batch = new ArrayList<>();
    for (int i = 0; i < BATCH; i++) {
      batch.add(probe.next(null));
    }
    return RawRequest.body(batch).length;
  }

  @Test
  void aResendAfterA503SendsTheSameBodyToAnotherInstanceAndCountsBothSends() throws IOException {
    a.status = 503;

    Outcome o = faults.run(Variant.RESEND_AFTER_ANSWER, 0, s -> s < 2);

    RecordingHttpServer.Seen first = onlyConnection(a);
    RecordingHttpServer.Seen second = onlyConnection(b);
    assertThat(first.body()).isEqualTo(second.body()).isEqualTo(bodyOf(made()));
    assertThat(first.headers.get("Host")).isEqualTo(RawRequest.hostHeader(a.address()));
    assertThat(second.headers.get("Host")).isEqualTo(RawRequest.hostHeader(b.address()));
    assertThat(o.tries())
        .containsExactly(
            new ClientFaults.Try(0, "503", Op.Type.INFO),
            new ClientFaults.Try(1, "202", Op.Type.OK));
    assertThat(made()).allSatisfy(e -> assertThat(ledger.sends(e.eventId())).isEqualTo(2));
    assertThat(ledger.duplicatesSent()).isEqualTo(BATCH);
    assertThat(ledger.ackedCount()).isEqualTo(BATCH);
    List<Op> ops = ops();
    assertThat(ops)
        .extracting(Op::type)
        .containsExactly(Op.Type.INVOKE, Op.Type.INFO, Op.Type.INVOKE, Op.Type.OK);
    assertThat(ops).extracting(Op::slot).containsExactly(0, 0, 1, 1);
    assertThat(ops).extracting(Op::process).containsOnly(ops.get(0).process());
    assertThat(ops).extracting(Op::direct).containsExactly(true, true, false, false);
  }

  @Test
  void aResendWithoutWaitingCutsTheFirstPostAfterItsBodyAndAcknowledgesTheSecond()
      throws IOException {
    Outcome o = faults.run(Variant.RESEND_WITHOUT_WAITING, 1, s -> s < 2);

    RecordingHttpServer.Seen first = onlyConnection(b);
    RecordingHttpServer.Seen second = onlyConnection(a);
    assertThat(first.body()).isEqualTo(second.body());
    assertThat(first.ended).isTrue();
    assertThat(o.key()).isEqualTo("resend-without-waiting: cut then 202");
    assertThat(o.tries())
        .extracting(ClientFaults.Try::type)
        .containsExactly(Op.Type.INFO, Op.Type.OK);
    assertThat(ledger.sendCount()).isEqualTo(2 * BATCH);
    assertThat(ledger.ackedCount()).isEqualTo(BATCH);
  }

  @Test
  void aResendWithNoOtherInstanceUpIsSkippedBeforeAnyEventIsMade() throws IOException {
    Outcome o = faults.run(Variant.RESEND_AFTER_ANSWER, 0, s -> s == 0);

    assertThat(o.skipped()).isEqualTo("no other instance up");
    assertThat(ledger.events()).isEmpty();
    assertThat(ops()).isEmpty();
    assertThat(faults.tally())
        .isEqualTo(
            Map.of(
                "resend-elsewhere",
                Map.of("resend-after-answer: skipped, no other instance up", 1L)));
  }

  @Test
  void aRefusedConnectionFailsAndMarksNothingSent() throws IOException {
    Outcome o = faults.run(Variant.WHOLE_BODY_THEN_CLOSE, 2, s -> true);

    assertThat(o.tries()).containsExactly(new ClientFaults.Try(2, "refused", Op.Type.FAIL));
    assertThat(ledger.sentCount()).isZero();
    assertOneCompletedPost(ops(), 2, Op.Type.FAIL, "client-fault whole-body-then-close: refused");
  }

  @Test
  void aSlowClientAgainstAServerThatNeverAnswersTimesOutWithAnUnknownOutcome() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      InetSocketAddress to = new InetSocketAddress("127.0.0.1", silent.getLocalPort());
      Settings quick =
          new Settings(
              Duration.ofSeconds(1),
              Duration.ofMillis(300),
              Duration.ofMillis(800),
              4,
              BATCH,
              Settings.loopback(250));
      try (ClientFaults f =
          new ClientFaults(s -> to, 1, KEY, ledger, history, 1, s -> false, quick)) {
        Outcome o = f.run(Variant.SLOW_WITHIN_TIMEOUT, 0, s -> true);
        assertThat(o.tries()).containsExactly(new ClientFaults.Try(0, "timeout", Op.Type.INFO));
      }
    }
    assertThat(ledger.sentCount()).isEqualTo(BATCH);
    assertThat(ledger.ackedCount()).isZero();
  }

  @Test
  void aBurstRunsRandomFaultsOnlyAgainstInstancesThatAreUpAndTalliesEveryTry() throws Exception {
    a.answerAfterBytes = 100;
    a.earlyStatus = 408;

    int started = faults.burst(Duration.ofSeconds(2), 10, s -> s == 0);

    assertThat(started).isGreaterThan(10);
    assertThat(b.connections()).as("slot 1 is down").isEmpty();
    Map<String, Map<String, Long>> tally = faults.tally();
    long tallied =
        tally.entrySet().stream()
            .filter(e -> !e.getKey().equals(ClientFaults.BURST))
            .flatMap(e -> e.getValue().values().stream())
            .mapToLong(Long::longValue)
            .sum();
    assertThat(tallied).isEqualTo(started);
    assertThat(tally.keySet()).hasSizeGreaterThanOrEqualTo(4);
    assertThat(tally.getOrDefault("resend-elsewhere", Map.of()).keySet())
        .allSatisfy(k -> assertThat(k).endsWith("skipped, no other instance up"));
    HistoryChecker.Verdict v = HistoryChecker.check(ops());
    assertThat(v.unfinished()).isZero();
    assertThat(v.completionsWithoutInvoke()).isZero();
    // every acknowledged event came from a 202 the client read
    long okWritten =
        ops().stream()
            .filter(op -> op.type() == Op.Type.OK)
            .mapToLong(op -> op.written().size())
            .sum();
    assertThat((long) ledger.ackedCount()).isEqualTo(okWritten);
  }
}
