package io.ambergarden.bus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ambergarden.event.Event;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CountFactsTest {
  private static final long T = Instant.parse("2026-03-01T12:34:56Z").toEpochMilli();
  private static final long HOUR = Instant.parse("2026-03-01T12:00:00Z").toEpochMilli();

  static Event ev(String device, long ts, String type, String status, Integer code, String id) {
    return new Event(device, ts, id, type, status, code, Map.of(), Map.of(), null);
  }

  @Test
  void eventsGroupByDeviceHourTypeStatusAndCodeWithTheirNumber() {
    List<CountFacts.Fact> facts =
        CountFacts.of(
            List.of(
                ev("M-1", T, "charger", "ok", 200, "a"),
                ev("M-1", T + 1000, "charger", "ok", 200, "b"),
                ev("M-1", T, "charger", "fault", 500, "c"),
                ev("M-1", T + 3_600_000, "charger", "ok", 200, "d"),
                ev("M-2", T, null, null, null, "e")));
    assertThat(facts)
        .containsExactly(
            new CountFacts.Fact("M-1", HOUR, "charger", "ok", 200, 2),
            new CountFacts.Fact("M-1", HOUR, "charger", "fault", 500, 1),
            new CountFacts.Fact("M-1", HOUR + 3_600_000, "charger", "ok", 200, 1),
            new CountFacts.Fact("M-2", HOUR, null, null, null, 1));
  }

  @Test
  void anEventSentTwiceInOneRequestCountsTwice() {
    Event e = ev("M-1", T, null, "ok", null, "same");
    assertThat(CountFacts.of(List.of(e, e)))
        .containsExactly(new CountFacts.Fact("M-1", HOUR, null, "ok", null, 2));
  }

  @Test
  void factsSurviveEncodingWithNullsAndUnicode() {
    List<CountFacts.Fact> facts =
        List.of(
            new CountFacts.Fact("M-1", HOUR, "charger", "ok", 200, 7),
            new CountFacts.Fact("dev:ü", -3_600_000, null, null, null, 1),
            new CountFacts.Fact("x", HOUR, null, "état", -1, Integer.MAX_VALUE));
    assertThat(CountFacts.decode(CountFacts.encode(facts))).isEqualTo(facts);
    assertThat(CountFacts.decode(CountFacts.encode(List.of()))).isEmpty();
  }

  @Test
  void aRecordOfAnotherVersionOrCutShortIsRefusedNotMisread() {
    ByteBuffer good =
        CountFacts.encode(List.of(new CountFacts.Fact("M-1", HOUR, null, null, 1, 2)));
    byte[] raw = new byte[good.remaining()];
    good.duplicate().get(raw);

    byte[] otherVersion = raw.clone();
    otherVersion[0] = 9;
    assertThatThrownBy(() -> CountFacts.decode(ByteBuffer.wrap(otherVersion)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("version");

    byte[] cut = java.util.Arrays.copyOf(raw, raw.length - 3);
    assertThatThrownBy(() -> CountFacts.decode(ByteBuffer.wrap(cut)))
        .isInstanceOf(IllegalArgumentException.class);

    byte[] longer = java.util.Arrays.copyOf(raw, raw.length + 1);
    assertThatThrownBy(() -> CountFacts.decode(ByteBuffer.wrap(longer)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("trailing");
  }

  @Test
  void decodingDoesNotMoveTheCallersBuffer() {
    ByteBuffer b =
        CountFacts.encode(List.of(new CountFacts.Fact("M-1", HOUR, null, null, null, 1)));
    int before = b.position();
    CountFacts.decode(b);
    assertThat(b.position()).isEqualTo(before);
  }
}
