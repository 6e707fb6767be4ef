package io.ambergarden.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ambergarden.counter.CounterLedger.Admission;
import io.ambergarden.counter.CounterLedger.Outcome;
import io.ambergarden.counter.CounterLedger.Tracked;
import io.ambergarden.event.Event;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class CounterLedgerTest {
  private static final int SHARDS = 4;
  private static final long TS = 1_780_000_000_000L;
  private static final Function<Event, List<CounterCell>> CELLS = e -> CounterCells.of(e, SHARDS);

  /** What a real counter table would hold: the sum of the deltas of every applied update. */
  private final Map<CounterCell, Long> table = new HashMap<>();

  private static Event event(String device, int i) {
    return new Event(device, TS + i, "e" + i, null, "ok", 200, Map.of(), Map.of(), null);
  }

  private static List<Event> events(String device, int from, int to) {
    List<Event> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(event(device, i));
    }
    return out;
  }

  private static List<Tracked> all(Map<Object, List<Tracked>> drained) {
    return drained.values().stream().flatMap(List::stream).toList();
  }

  /** Writes a statement into the table (when it succeeds) and settles it. */
  private Outcome<String> write(CounterLedger<String> ledger, List<Tracked> st, boolean ok) {
    if (ok) {
      st.forEach(t -> table.merge(t.update().cell(), t.update().delta(), Long::sum));
    }
    return ledger.settle(st, ok);
  }

  private long total(String device) {
    return table.entrySet().stream()
        .filter(e -> e.getKey() instanceof CounterCell.Device d && d.deviceId().equals(device))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  @Test
  void testARequestIsAnsweredOnlyOnceEveryCellOfItsEventsIsWritten() {
    CounterLedger<String> ledger = new CounterLedger<>(new CounterCoalescer(true, 1000), 100, 100);
    assertThat(ledger.admit("r1", events("d", 0, 3), CELLS)).isEqualTo(Admission.WAITING);
    List<Tracked> drained = all(ledger.drain());
    List<Tracked> first = drained.subList(0, 1);
    List<Tracked> rest = drained.subList(1, drained.size());
    assertThat(write(ledger, first, true).succeeded()).isEmpty();
    Outcome<String> done = write(ledger, rest, true);
    assertThat(done.succeeded()).containsExactly("r1");
    assertThat(done.failed()).isEmpty();
    assertThat(total("d")).isEqualTo(3);
    assertThat(ledger.openEvents()).isZero();
    assertThat(ledger.remembered()).isEqualTo(3);
  }

  @Test
  void testARetryWhileTheFlushIsPendingWaitsForItInsteadOfAddingTheIncrementsAgain() {
    CounterCoalescer coalescer = new CounterCoalescer(true, 1000);
    CounterLedger<String> ledger = new CounterLedger<>(coalescer, 100, 100);
    ledger.admit("first", events("d", 0, 5), CELLS);
    Map<Object, List<Tracked>> inFlight = ledger.drain();
    // the caller timed out on the bus and sends the same batch again, plus one new event
    assertThat(ledger.admit("retry", events("d", 0, 6), CELLS)).isEqualTo(Admission.WAITING);
    assertThat(coalescer.increments()).as("only the new event's cells").isEqualTo(4);
    assertThat(ledger.duplicates()).isEqualTo(5);

    Outcome<String> first = write(ledger, all(inFlight), true);
    assertThat(first.succeeded()).containsExactly("first");
    Outcome<String> second = write(ledger, all(ledger.drain()), true);
    assertThat(second.succeeded()).containsExactly("retry");
    assertThat(total("d")).isEqualTo(6);
  }

  @Test
  void testARetryAfterTheIncrementsWereAppliedIsAnsweredAtOnceWithoutWritingAnything() {
    CounterCoalescer coalescer = new CounterCoalescer(true, 1000);
    CounterLedger<String> ledger = new CounterLedger<>(coalescer, 100, 100);
    ledger.admit("first", events("d", 0, 5), CELLS);
    write(ledger, all(ledger.drain()), true);
    assertThat(ledger.admit("again", events("d", 0, 5), CELLS)).isEqualTo(Admission.DONE);
    assertThat(coalescer.pending()).isZero();
    assertThat(total("d")).isEqualTo(5);
  }

  @Test
  void testAPartialFailureFailsTheWaitersButKeepsWhatWasAppliedAndTheRetrySendsOnlyTheRest() {
    CounterCoalescer coalescer = new CounterCoalescer(true, 1000);
    CounterLedger<String> ledger = new CounterLedger<>(coalescer, 100, 100);
    List<Event> batch = events("d", 0, 4);
    ledger.admit("r1", batch.subList(0, 2), CELLS);
    ledger.admit("r2", batch.subList(2, 4), CELLS);
    Map<Object, List<Tracked>> drained = ledger.drain();
    // the device cells go in one statement, which fails; the day cells in another, which succeeds
    List<Tracked> device =
        all(drained).stream().filter(t -> t.update().cell() instanceof CounterCell.Device).toList();
    List<Tracked> day =
        all(drained).stream().filter(t -> t.update().cell() instanceof CounterCell.Day).toList();
    assertThat(write(ledger, day, true).succeeded()).isEmpty();
    Outcome<String> failed = write(ledger, device, false);
    assertThat(failed.failed()).containsExactlyInAnyOrder("r1", "r2");
    assertThat(failed.succeeded()).isEmpty();

    // the source retries the whole batch: only the device cells go out again
    assertThat(ledger.admit("retry", batch, CELLS)).isEqualTo(Admission.WAITING);
    List<Tracked> again = all(ledger.drain());
    assertThat(again).allMatch(t -> t.update().cell() instanceof CounterCell.Device);
    assertThat(write(ledger, again, true).succeeded()).containsExactly("retry");
    // every cell of every event exactly once: 3 day cells (all, code, status) + 1 device cell
    assertThat(table.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(4 * 4);
    assertThat(total("d")).isEqualTo(4);
  }

  @Test
  void testWithoutCoalescingEachIncrementCarriesItsOwnEvent() {
    CounterLedger<String> ledger = new CounterLedger<>(new CounterCoalescer(false, 1000), 100, 100);
    ledger.admit("r1", events("d", 0, 3), CELLS);
    List<Tracked> drained = all(ledger.drain());
    assertThat(drained).hasSize(12).allMatch(t -> t.slots().size() == 1);
    // the statements of event 0 fail, the rest succeed
    Outcome<String> out = null;
    for (int i = 0; i < drained.size(); i++) {
      Outcome<String> o = write(ledger, List.of(drained.get(i)), i % 3 != 0);
      out = o.failed().isEmpty() ? out : o;
    }
    assertThat(out).isNotNull();
    assertThat(out.failed()).containsExactly("r1");
    assertThat(ledger.admit("retry", events("d", 0, 3), CELLS)).isEqualTo(Admission.WAITING);
    List<Tracked> again = all(ledger.drain());
    assertThat(again).hasSize(4);
    write(ledger, again, true);
    assertThat(total("d")).isEqualTo(3);
  }

  @Test
  void testADuplicateInsideOneRequestCountsOnce() {
    CounterLedger<String> ledger = new CounterLedger<>(new CounterCoalescer(true, 1000), 100, 100);
    List<Event> twice = List.of(event("d", 1), event("d", 1), event("d", 2));
    ledger.admit("r", twice, CELLS);
    assertThat(write(ledger, all(ledger.drain()), true).succeeded()).containsExactly("r");
    assertThat(total("d")).isEqualTo(2);
  }

  @Test
  void testAnExceptionWhileTakingARequestLeavesNothingBehind() {
    CounterCoalescer coalescer = new CounterCoalescer(true, 1000);
    CounterLedger<String> ledger = new CounterLedger<>(coalescer, 100, 100);
    Function<Event, List<CounterCell>> broken =
        e -> {
          if (e.eventId().equals("e2")) {
            throw new IllegalStateException("boom");
          }
          return CELLS.apply(e);
        };
    assertThatThrownBy(() -> ledger.admit("r", events("d", 0, 4), broken))
        .isInstanceOf(IllegalStateException.class);
    assertThat(coalescer.pending()).isZero();
    assertThat(ledger.openEvents()).isZero();
    // and the same events go through normally afterwards
    assertThat(ledger.admit("r", events("d", 0, 4), CELLS)).isEqualTo(Admission.WAITING);
    write(ledger, all(ledger.drain()), true);
    assertThat(total("d")).isEqualTo(4);
  }

  @Test
  void testOpenEventsAreBoundedAndTheOldestIdleOnesAreForgottenFirst() {
    CounterCoalescer coalescer = new CounterCoalescer(true, 10_000);
    CounterLedger<String> ledger = new CounterLedger<>(coalescer, 100, 4);
    ledger.admit("r1", events("a", 0, 4), CELLS);
    // four events pending: a fifth has no room
    assertThat(ledger.admit("r2", events("b", 0, 1), CELLS)).isEqualTo(Admission.REFUSED);
    assertThat(coalescer.increments()).isEqualTo(16);
    // they fail: now idle (nothing pending, nobody waiting), so they may be forgotten
    write(ledger, all(ledger.drain()), false);
    assertThat(ledger.admit("r2", events("b", 0, 1), CELLS)).isEqualTo(Admission.WAITING);
    assertThat(ledger.openEvents()).isEqualTo(4);
  }

  @Test
  void testOutsideTheWindowAnEventCountsAgainWhichIsTheDocumentedBound() {
    CounterLedger<String> ledger = new CounterLedger<>(new CounterCoalescer(true, 1000), 3, 100);
    ledger.admit("r1", events("d", 0, 1), CELLS);
    write(ledger, all(ledger.drain()), true);
    ledger.admit("r2", events("d", 1, 4), CELLS); // three newer events push the first one out
    write(ledger, all(ledger.drain()), true);
    assertThat(ledger.admit("late", events("d", 0, 1), CELLS)).isEqualTo(Admission.WAITING);
    write(ledger, all(ledger.drain()), true);
    assertThat(total("d")).isEqualTo(5);
  }

  @Test
  void testRandomFailuresAndRetriesStillCountEveryEventExactlyOnce() {
    Random rnd = new Random(13);
    CounterLedger<String> ledger =
        new CounterLedger<>(new CounterCoalescer(true, 100_000), 10_000, 10_000);
    List<Event> all = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      all.add(event("dev-" + (i % 7), i));
    }
    // every batch is retried until its request succeeds; statements fail at random; retries come
    // both while earlier attempts are still in flight and after they settled
    List<List<Event>> unanswered = new ArrayList<>();
    for (int i = 0; i < all.size(); i += 20) {
      unanswered.add(all.subList(i, i + 20));
    }
    Map<String, List<Event>> requests = new HashMap<>();
    List<Map<Object, List<Tracked>>> inFlight = new ArrayList<>();
    int n = 0;
    while (!unanswered.isEmpty() || !inFlight.isEmpty()) {
      if (!unanswered.isEmpty()) {
        List<Event> batch = unanswered.remove(rnd.nextInt(unanswered.size()));
        String id = "req-" + n++;
        requests.put(id, batch);
        Admission a = ledger.admit(id, batch, CELLS);
        if (a == Admission.DONE) {
          continue;
        }
        inFlight.add(ledger.drain());
        if (rnd.nextInt(3) == 0) {
          unanswered.add(batch); // a bus timeout: the source sends it again at once
        }
      }
      if (!inFlight.isEmpty() && (unanswered.isEmpty() || rnd.nextBoolean())) {
        Map<Object, List<Tracked>> flush = inFlight.remove(rnd.nextInt(inFlight.size()));
        for (List<Tracked> st : flush.values()) {
          Outcome<String> o = write(ledger, st, rnd.nextInt(4) != 0);
          o.failed().forEach(id -> unanswered.add(requests.get(id)));
        }
      }
    }
    long devices = 0;
    for (int d = 0; d < 7; d++) {
      devices += total("dev-" + d);
    }
    assertThat(devices).isEqualTo(300);
    long dayAll =
        table.entrySet().stream()
            .filter(e -> e.getKey() instanceof CounterCell.Day day && day.dimension().equals("all"))
            .mapToLong(Map.Entry::getValue)
            .sum();
    assertThat(dayAll).isEqualTo(300);
    assertThat(ledger.openEvents()).isZero();
  }
}
