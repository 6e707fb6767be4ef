package io.ambergarden.chaos.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HistoryCheckerTest {
  static final int POSTER = 0;
  static final int READER = 4;
  static final int DIRECT = 0;
  static final int KAFKA = 1;

  @TempDir Path dir;

  /** A history of posts and reads, written to a file and replayed, as a run does. */
  private final class Recorder {
    final History h;

    Recorder() throws IOException {
      h = new History(dir.resolve("history.ndjson.gz"), 1_000);
    }

    void post(int process, int slot, boolean direct, Op.Type result, String device, long ts) {
      Op i =
          h.invoke(
              process,
              Op.Fn.POST,
              slot,
              direct,
              List.of(new Op.Written(device, ts, "e" + ts)),
              null);
      h.complete(i, result, null, result == Op.Type.OK ? "202" : "timeout");
    }

    void read(int process, int slot, String device, Integer ts) {
      Op i =
          h.invoke(process, Op.Fn.READ_LATEST, slot, slot == DIRECT, List.of(), Op.Read.of(device));
      h.complete(
          i,
          Op.Type.OK,
          ts == null ? Op.Read.of(device) : new Op.Read(device, "e" + ts, ts.longValue()),
          ts == null ? "404" : "200");
    }

    HistoryChecker.Verdict verdict() throws IOException {
      h.close();
      return HistoryChecker.check(h.file());
    }
  }

  @Test
  void aConsistentHistoryHasNoAnomaly() throws IOException {
    Recorder r = new Recorder();
    r.post(POSTER, DIRECT, true, Op.Type.OK, "d0", 100);
    r.read(POSTER, KAFKA, "d0", 100);
    r.read(READER, KAFKA, "d0", null);
    r.read(READER, DIRECT, "d0", 100);
    r.post(POSTER, DIRECT, true, Op.Type.OK, "d0", 120);
    r.read(POSTER, DIRECT, "d0", 140); // a newer event from elsewhere is fine
    r.read(READER, KAFKA, "d0", 140);
    HistoryChecker.Verdict v = r.verdict();
    assertThat(v.operations()).isEqualTo(14);
    assertThat(v.readsAfterOwnDirectWrite()).isEqualTo(2);
    assertThat(v.lostReadYourWrites()).isZero();
    assertThat(v.latestBackwards()).isZero();
    assertThat(v.unfinished()).isZero();
  }

  @Test
  void aReadThatMissesTheWritersOwnDirectModeAcknowledgementIsALostReadYourWrite()
      throws IOException {
    Recorder r = new Recorder();
    r.post(POSTER, DIRECT, true, Op.Type.OK, "d0", 100);
    r.post(POSTER, DIRECT, true, Op.Type.OK, "d0", 120);
    r.read(POSTER, KAFKA, "d0", 100);
    HistoryChecker.Verdict v = r.verdict();
    assertThat(v.lostReadYourWrites()).isEqualTo(1);
    assertThat(v.lostReadYourWritesExamples().get(0)).contains("e120");
  }

  @Test
  void aReadThatServesNothingAfterADirectModeAcknowledgementIsALostReadYourWrite()
      throws IOException {
    Recorder r = new Recorder();
    r.post(POSTER, DIRECT, true, Op.Type.OK, "d0", 100);
    r.read(POSTER, DIRECT, "d0", null);
    assertThat(r.verdict().lostReadYourWrites()).isEqualTo(1);
  }

  @Test
  void kafkaModeAcknowledgementsAndUnknownOutcomesOweNoReadYourWrite() throws IOException {
    Recorder r = new Recorder();
    r.post(POSTER, KAFKA, false, Op.Type.OK, "d0", 100);
    r.post(POSTER, DIRECT, true, Op.Type.INFO, "d0", 120);
    r.read(POSTER, KAFKA, "d0", null);
    HistoryChecker.Verdict v = r.verdict();
    assertThat(v.lostReadYourWrites()).isZero();
    assertThat(v.readsAfterOwnDirectWrite()).isZero();
  }

  @Test
  void aReaderThatSeesAnOlderLatestAfterANewerOneHasItGoingBackwards() throws IOException {
    Recorder r = new Recorder();
    r.read(READER, KAFKA, "d0", 140);
    r.read(READER, DIRECT, "d1", 10); // another device does not matter
    r.read(READER, DIRECT, "d0", 120);
    HistoryChecker.Verdict v = r.verdict();
    assertThat(v.latestBackwards()).isEqualTo(1);
    assertThat(v.latestBackwardsExamples().get(0)).contains("after it had seen ts 140");
  }

  @Test
  void aLatestThatDisappearsForAReaderGoesBackwards() throws IOException {
    Recorder r = new Recorder();
    r.read(READER, KAFKA, "d0", 140);
    r.read(READER, KAFKA, "d0", null);
    assertThat(r.verdict().latestBackwards()).isEqualTo(1);
  }

  @Test
  void twoReadersMaySeeDifferentStatesWithoutAnAnomaly() throws IOException {
    Recorder r = new Recorder();
    r.read(READER, KAFKA, "d0", 140);
    r.read(READER + 1, KAFKA, "d0", 120);
    assertThat(r.verdict().latestBackwards()).isZero();
  }

  @Test
  void theHistoryFileIsCompressedNdjsonWithMonotonicTimesAndPastItsBoundOperationsAreCounted()
      throws IOException {
    History h = new History(dir.resolve("h.ndjson.gz"), 3);
    Op i = h.invoke(POSTER, Op.Fn.POST, 2, false, List.of(new Op.Written("d0", 1, "e1")), null);
    h.complete(i, Op.Type.INFO, null, "timeout");
    Op j = h.invoke(READER, Op.Fn.READ_LATEST, 1, false, List.of(), Op.Read.of("d0"));
    h.complete(j, Op.Type.OK, new Op.Read("d0", "e1", 1), "200");
    h.close();
    assertThat(h.recorded()).isEqualTo(3);
    assertThat(h.truncated()).isTrue();
    assertThat(h.dropped()).isEqualTo(1);

    List<String> lines;
    try (GZIPInputStream in = new GZIPInputStream(Files.newInputStream(h.file()))) {
      lines =
          new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines().toList();
    }
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0))
        .contains(
            "\"type\":\"invoke\"",
            "\"f\":\"post\"",
            "\"slot\":2",
            "\"written\":[[\"d0\",1,\"e1\"]]");
    assertThat(lines.get(1)).contains("\"type\":\"info\"", "\"outcome\":\"timeout\"");
    List<Op> ops = new ArrayList<>();
    History.replay(h.file(), ops::add);
    assertThat(ops).extracting(Op::index).containsExactly(0L, 1L, 2L);
    assertThat(ops.get(1).nanos()).isGreaterThanOrEqualTo(ops.get(0).nanos());
    assertThat(ops.get(2).nanos()).isGreaterThanOrEqualTo(ops.get(1).nanos());
    assertThat(HistoryChecker.check(h.file()).unfinished()).isEqualTo(1);
  }
}
