package io.ambergarden.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ambergarden.event.BodyFormat;
import io.ambergarden.event.Event;
import io.ambergarden.event.EventParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class LiveRecordsTest {
  private final EventParser parser = new EventParser();
  private final long now = System.currentTimeMillis();

  private List<Event> events(int n) {
    return IntStream.range(0, n)
        .mapToObj(
            i ->
                new Event(
                    "dev-" + i,
                    now - i,
                    "e" + i,
                    "pump",
                    "ok",
                    200,
                    Map.of("temperature", 20.5 + i),
                    Map.of("site", "a"),
                    null))
        .toList();
  }

  private List<Event> decode(List<byte[]> records) {
    List<Event> out = new ArrayList<>();
    for (byte[] r : records) {
      EventParser.BatchResult parsed = parser.parseBatch(r, BodyFormat.NDJSON);
      assertThat(parsed.errors()).isEmpty();
      out.addAll(parsed.events());
    }
    return out;
  }

  @Test
  void everyEventComesBackInOrderAndRecordsHoldAtMostMaxEvents() {
    List<Event> events = events(25);

    List<byte[]> records = LiveRecords.encode(events, 10, 1 << 20);

    assertThat(records).hasSize(3);
    assertThat(decode(records)).containsExactlyElementsOf(events);
    assertThat(decode(List.of(records.get(2)))).hasSize(5);
  }

  @Test
  void recordsStayWithinMaxBytesAndAnOversizeEventTravelsAlone() {
    List<Event> events = events(40);
    int oneLine = LiveRecords.encode(events.subList(0, 1), 1, 1 << 20).get(0).length;

    List<byte[]> records = LiveRecords.encode(events, 1000, oneLine * 3 + 10);

    assertThat(records).allSatisfy(r -> assertThat(r.length).isLessThanOrEqualTo(oneLine * 3 + 10));
    assertThat(decode(records)).containsExactlyElementsOf(events);
    List<byte[]> tiny = LiveRecords.encode(events.subList(0, 2), 1000, 5);
    assertThat(tiny).hasSize(2);
    assertThat(decode(tiny)).containsExactlyElementsOf(events.subList(0, 2));
  }

  @Test
  void noEventsNoRecordsAndLimitsMustBePositive() {
    assertThat(LiveRecords.encode(List.of(), 10, 100)).isEmpty();
    assertThatThrownBy(() -> LiveRecords.encode(events(1), 0, 100))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LiveRecords.encode(events(1), 10, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
