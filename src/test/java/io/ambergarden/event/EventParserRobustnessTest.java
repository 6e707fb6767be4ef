package io.ambergarden.event;

import static io.ambergarden.event.Events.NOW;
import static io.ambergarden.event.Events.PARSER;
import static io.ambergarden.event.Events.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class EventParserRobustnessTest {

  private static final String SAMPLE =
      "[{\"deviceId\":\"M-10086\",\"ts\":"
          + NOW
          + ",\"eventId\":\"e1\","
          + "\"deviceType\":\"charger\",\"status\":\"normal\",\"code\":200,\"metrics\":{\"temperature\":36.5},"
          + "\"tags\":{\"site\":\"plant-3\"},\"payload\":{\"a\":[1,2.5,{\"b\":null,\"c\":\"\u00e9\ud83d\ude00\"}]}},"
          + "{\"deviceId\":\"d1\",\"ts\":\"2026-07-15T00:00:00Z\",\"temperature\":1,\"vibration\":0.02}]";

  private static final byte[] INTERESTING = utf8("{}[]\":,0123456789-+.eE\\ntfuNaI \n\r\t");

  @Test
  void randomlyMutatedBodiesNeverThrow() {
    Random rnd = new Random(42);
    byte[] base = utf8(SAMPLE);
    for (int i = 0; i < 20_000; i++) {
      byte[] b = base.clone();
      int edits = 1 + rnd.nextInt(4);
      for (int k = 0; k < edits; k++) {
        int pos = rnd.nextInt(b.length);
        b[pos] =
            rnd.nextInt(3) == 0
                ? (byte) rnd.nextInt(256)
                : INTERESTING[rnd.nextInt(INTERESTING.length)];
      }
      int len = rnd.nextInt(8) == 0 ? rnd.nextInt(b.length + 1) : b.length;
      for (BodyFormat f : BodyFormat.values()) {
        EventParser.BatchResult r = PARSER.parseBatch(b, 0, len, f);
        assertThat(r.ok() ? !r.events().isEmpty() : r.events().isEmpty()).isTrue();
        assertThat(r.errors())
            .hasSizeLessThanOrEqualTo(EventParser.MAX_ERRORS + 1)
            .allSatisfy(e -> assertThat(e.field()).isNotNull());
      }
      byte[] one = java.util.Arrays.copyOfRange(b, 1, Math.max(1, len - 1));
      EventParser.SingleResult s = PARSER.parseOne(one);
      assertThat(s.ok()).isEqualTo(s.event() != null);
    }
  }

  @Test
  void everyAcceptedEventRoundTrips() {
    Random rnd = new Random(7);
    byte[] base = utf8(SAMPLE);
    int accepted = 0;
    for (int i = 0; i < 5_000; i++) {
      byte[] b = base.clone();
      int pos = rnd.nextInt(b.length);
      b[pos] = INTERESTING[rnd.nextInt(INTERESTING.length)];
      EventParser.BatchResult r = PARSER.parseBatch(b, BodyFormat.JSON);
      for (Event e : r.events()) {
        accepted++;
        EventParser.SingleResult back = PARSER.parseOne(EventJson.toJsonBytes(e));
        assertThat(back.errors()).isEmpty();
        assertThat(back.event()).isEqualTo(e);
      }
    }
    assertThat(accepted).isPositive();
  }

  @Test
  void oneParserIsSafeToShareBetweenThreads() throws Exception {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < 200; i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append("{\"deviceId\":\"d")
          .append(i)
          .append("\",\"ts\":")
          .append(NOW - i)
          .append(",\"metrics\":{\"m\":")
          .append(i)
          .append("},\"payload\":{\"i\":")
          .append(i)
          .append("}}");
    }
    byte[] good = utf8(sb.append(']').toString());
    byte[] bad = utf8("[{\"deviceId\":1,\"ts\":1},{\"ts\":2}]");
    List<FieldError> expectedBad = PARSER.parseBatch(bad, BodyFormat.JSON).errors();
    assertThat(expectedBad).hasSize(4);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Boolean>> results = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        results.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 300; i++) {
                    EventParser.BatchResult g = PARSER.parseBatch(good, BodyFormat.JSON);
                    if (!g.ok()
                        || g.events().size() != 200
                        || !g.events().get(199).payload().equals("{\"i\":199}")) {
                      return false;
                    }
                    if (!PARSER.parseBatch(bad, BodyFormat.JSON).errors().equals(expectedBad)) {
                      return false;
                    }
                  }
                  return true;
                }));
      }
      for (Future<Boolean> f : results) {
        assertThat(f.get()).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
