package io.ambergarden.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.cql.Row;
import io.ambergarden.event.Event;
import io.ambergarden.event.SampleEvents;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class StoredEventsTest {

  @Test
  void aFullEventComesBackFromItsDetailRowForBothReads() {
    Event e = SampleEvents.full("M-10086", 1_780_000_000_123L);
    assertThat(StoredEvents.ofDevice("M-10086", EventRows.ofDevice(e))).isEqualTo(e);
    assertThat(StoredEvents.ofType(e.deviceType(), "M-10086", EventRows.ofDevice(e))).isEqualTo(e);
  }

  @Test
  void aByTypeEventIsServedUnderTheTypeItWasIndexedBy() {
    Event e = SampleEvents.full("M-10086", 1_780_000_000_123L);
    assertThat(StoredEvents.ofType("other", "M-10086", EventRows.ofDevice(e)).deviceType())
        .isEqualTo("other");
  }

  @Test
  void anIndexRowNamesItsEventsKeysAndDetailPartition() {
    Event e = new Event("d1", 1_780_000_000_123L, "e-1");
    DetailLookup.Entry cold = StoredEvents.indexEntry(EventRows.ofType(e, null));
    assertThat(cold).isEqualTo(new DetailLookup.Entry(e.ts(), "d1", "e-1", null));
    // no detail_bucket: the bucket's own partition
    assertThat(cold.partition(1_779_998_400_000L)).isEqualTo(1_779_998_400_000L);
    DetailLookup.Entry sliced = StoredEvents.indexEntry(EventRows.ofType(e, 1_779_999_000_003L));
    assertThat(sliced.partition(1_779_998_400_000L)).isEqualTo(1_779_999_000_003L);
  }

  @Test
  void unsetColumnsComeBackAsAbsentFields() {
    Event e = new Event("d1", 5L, "");
    Event back = StoredEvents.ofDevice("d1", EventRows.ofDevice(e));
    assertThat(back).isEqualTo(e);
    assertThat(back.code()).isNull();
    assertThat(back.status()).isNull();
    assertThat(back.payload()).isNull();
    assertThat(back.metrics()).isEmpty();
    assertThat(back.tags()).isEmpty();
  }

  @Test
  void typeRowsSortInTheTablesClusteringOrder() {
    Random random = new Random(3);
    List<Event> events = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      events.add(
          new Event("d" + random.nextInt(5), 1000L + random.nextInt(20), "e" + random.nextInt(5)));
    }
    List<Row> rows = new ArrayList<>(events.stream().map(e -> EventRows.ofType(e, null)).toList());
    Collections.shuffle(rows, random);
    rows.sort(StoredEvents.TYPE_ORDER);
    List<DetailLookup.Entry> sorted = rows.stream().map(StoredEvents::indexEntry).toList();
    for (int i = 1; i < sorted.size(); i++) {
      DetailLookup.Entry a = sorted.get(i - 1);
      DetailLookup.Entry b = sorted.get(i);
      // ts DESC, then device_id ASC, then event_id ASC
      int order =
          a.ts() != b.ts()
              ? Long.compare(b.ts(), a.ts())
              : a.deviceId().equals(b.deviceId())
                  ? a.eventId().compareTo(b.eventId())
                  : a.deviceId().compareTo(b.deviceId());
      assertThat(order).as("%s before %s", a, b).isLessThanOrEqualTo(0);
    }
  }
}
