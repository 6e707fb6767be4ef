package io.ambergarden.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.cassandra.FleetFacets;
import io.ambergarden.event.Event;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FleetMembershipTest {
  static final long T0 = 1_767_225_600_000L;
  static final long HOUR = 3_600_000L;

  static Event event(String device, long ts, String type, String status) {
    return new Event(device, ts, "", type, status, null, Map.of(), Map.of(), null);
  }

  @Test
  void aNewDeviceGetsEveryFacetAndAnActivityRow() {
    FleetMembership m = new FleetMembership(HOUR, 100);
    FleetMembership.Change c = m.plan(event("M-1", T0, "charger", "normal"), false);
    assertThat(c.add())
        .containsExactly(
            FleetFacets.ALL,
            FleetFacets.type("charger"),
            FleetFacets.status("normal"),
            FleetFacets.typeStatus("charger", "normal"));
    assertThat(c.remove()).isEmpty();
    assertThat(c.activity()).isTrue();
  }

  @Test
  void anUnchangedDeviceCostsNoIndexWrite() {
    FleetMembership m = new FleetMembership(HOUR, 100);
    m.stored(m.plan(event("M-1", T0, "charger", "normal"), false));
    FleetMembership.Change c = m.plan(event("M-1", T0 + 1000, "charger", "normal"), false);
    assertThat(c.isEmpty()).isTrue();
  }

  @Test
  void
      aStatusChangeWritesTheNewFacetsAtOnceAndDeletesTheOldOnesOneRefreshLaterReachingOneRefreshBack() {
    FleetMembership m = new FleetMembership(HOUR, 100);
    m.plan(event("M-1", T0, "charger", "normal"), false);
    FleetMembership.Change c = m.plan(event("M-1", T0 + 1000, "charger", "fault"), true);
    // only the facets entered: all and type are unchanged
    assertThat(c.add())
        .containsExactly(
            FleetFacets.status("fault"),
            FleetFacets.ABNORMAL,
            FleetFacets.typeStatus("charger", "fault"),
            FleetFacets.typeAbnormal("charger"));
    assertThat(c.writeTs()).isEqualTo((T0 + 1000) * 1000);
    // another writer may still trust the normal pointers it wrote: nothing is deleted yet
    assertThat(c.remove()).isEmpty();
    assertThat(m.plan(event("M-1", T0 + HOUR, "charger", "fault"), true).remove()).isEmpty();

    FleetMembership.Change due = m.plan(event("M-1", T0 + 1000 + HOUR, "charger", "fault"), true);
    assertThat(due.remove())
        .containsExactlyInAnyOrder(
            FleetFacets.status("normal"), FleetFacets.typeStatus("charger", "normal"));
    assertThat(due.deleteTs()).isEqualTo((T0 + 1000) * 1000);
    // deleted once
    assertThat(m.plan(event("M-1", T0 + 2 * HOUR, "charger", "fault"), true).remove()).isEmpty();
  }

  @Test
  void aTypeChangeDeletesEveryFacetOfTheOldTypeWhenDue() {
    FleetMembership m = new FleetMembership(HOUR, 100);
    m.plan(event("M-1", T0, "charger", "fault"), true);
    m.plan(event("M-1", T0 + 1000, "meter", "fault"), true);
    FleetMembership.Change due = m.plan(event("M-1", T0 + 2000 + HOUR, "meter", "fault"), true);
    assertThat(due.remove())
        .containsExactlyInAnyOrder(
            FleetFacets.type("charger"),
            FleetFacets.typeStatus("charger", "fault"),
            FleetFacets.typeAbnormal("charger"));
  }

  @Test
  void aFacetTheDeviceIsBackInBeforeItsDeleteIsDueIsNeverDeleted() {
    FleetMembership m = new FleetMembership(HOUR, 100);
    m.plan(event("M-1", T0, "charger", "normal"), false);
    m.plan(event("M-1", T0 + 1000, "charger", "fault"), true);
    FleetMembership.Change back = m.plan(event("M-1", T0 + 2000, "charger", "normal"), false);
    assertThat(back.add()).contains(FleetFacets.status("normal"));
    FleetMembership.Change due = m.plan(event("M-1", T0 + 3000 + HOUR, "charger", "normal"), false);
    assertThat(due.remove())
        .containsExactlyInAnyOrder(
            FleetFacets.status("fault"),
            FleetFacets.ABNORMAL,
            FleetFacets.typeStatus("charger", "fault"),
            FleetFacets.typeAbnormal("charger"));
  }

  @Test
  void aLateOlderEventWritesNothing() {
    FleetMembership m = new FleetMembership(HOUR, 100);
    m.stored(m.plan(event("M-1", T0 + 5000, "charger", "normal"), false));
    FleetMembership.Change late = m.plan(event("M-1", T0, "charger", "fault"), true);
    assertThat(late.isEmpty()).isTrue();
    // and it did not become what the next event is compared with
    assertThat(m.plan(event("M-1", T0 + 6000, "charger", "normal"), false).isEmpty()).isTrue();
  }

  @Test
  void theNextRequestPlansAgainstAChangeStillBeingWritten() {
    FleetMembership m = new FleetMembership(HOUR, 100);
    m.plan(event("M-1", T0, "charger", "normal"), false);
    m.plan(event("M-1", T0 + 1000, "charger", "fault"), true); // rows in flight
    FleetMembership.Change back = m.plan(event("M-1", T0 + 2000, "charger", "normal"), false);
    // the device left normal at T0+1000; this one must write it again, and later delete fault
    assertThat(back.add()).contains(FleetFacets.status("normal"));
    assertThat(back.next().left())
        .extracting(FleetMembership.Left::facet)
        .contains(FleetFacets.status("fault"))
        .doesNotContain(FleetFacets.status("normal"));
  }

  @Test
  void aFailedChangeIsForgottenSoTheNextEventRewritesTheDevice() {
    FleetMembership m = new FleetMembership(HOUR, 100);
    FleetMembership.Change first = m.plan(event("M-1", T0, "charger", "normal"), false);
    m.failed(first);
    assertThat(m.plan(event("M-1", T0 + 1000, "charger", "normal"), false).add()).isNotEmpty();
  }

  @Test
  void aFailedChangeIsForgottenAlsoWhenANewerChangeWasPlannedOnTopOfIt() {
    FleetMembership m = new FleetMembership(HOUR, 100);
    FleetMembership.Change first = m.plan(event("M-1", T0, "charger", "normal"), false);
    // planned while the first is in flight: it trusts the first one's facets and writes none
    assertThat(m.plan(event("M-1", T0 + 1000, "charger", "normal"), false).add()).isEmpty();
    m.failed(first);
    // the failed event sent again writes every facet the newer one trusted
    assertThat(m.plan(event("M-1", T0, "charger", "normal"), false).add()).hasSize(4);
  }

  @Test
  void unchangedRowsAreRewrittenOncePerRefreshAndActivityEveryFiveMinutes() {
    FleetMembership m = new FleetMembership(HOUR, 100);
    m.stored(m.plan(event("M-1", T0, "charger", "normal"), false));
    FleetMembership.Change fourMinutes =
        m.plan(event("M-1", T0 + 240_000, "charger", "normal"), false);
    assertThat(fourMinutes.isEmpty()).isTrue();
    FleetMembership.Change sixMinutes =
        m.plan(event("M-1", T0 + 360_000, "charger", "normal"), false);
    assertThat(sixMinutes.activity()).isTrue();
    assertThat(sixMinutes.add()).isEmpty();
    m.stored(sixMinutes);
    FleetMembership.Change anHour = m.plan(event("M-1", T0 + HOUR, "charger", "normal"), false);
    assertThat(anHour.add()).hasSize(4);
    assertThat(anHour.remove()).isEmpty();
  }

  @Test
  void everyRequestWritesTheActivityRowUntilOneHasStoredIt() {
    FleetMembership m = new FleetMembership(HOUR, 100);
    FleetMembership.Change first = m.plan(event("M-1", T0, "charger", "normal"), false);
    // planned while the first is in flight, which may fail and, over HTTP, never be sent again
    FleetMembership.Change second = m.plan(event("M-1", T0 + 1000, "charger", "normal"), false);
    assertThat(second.activity()).isTrue();
    assertThat(second.add()).as("facets trust the plan in flight").isEmpty();
    m.stored(first);
    assertThat(m.plan(event("M-1", T0 + 2000, "charger", "normal"), false).isEmpty()).isTrue();
  }

  @Test
  void anActivityRowStoredLateDoesNotUndoANewerOne() {
    FleetMembership m = new FleetMembership(HOUR, 100);
    FleetMembership.Change early = m.plan(event("M-1", T0, "charger", "normal"), false);
    FleetMembership.Change later = m.plan(event("M-1", T0 + 360_000, "charger", "normal"), false);
    m.stored(later);
    m.stored(early);
    assertThat(m.plan(event("M-1", T0 + 400_000, "charger", "normal"), false).activity()).isFalse();
  }

  @Test
  void theLeftFacetsAwaitingTheirDeleteAreBoundedPerDevice() {
    FleetMembership m = new FleetMembership(HOUR, 100);
    FleetMembership.Change last = null;
    for (int i = 0; i < 40; i++) {
      last = m.plan(event("M-1", T0 + i, "charger", "s" + i), false);
    }
    assertThat(last.next().left()).hasSize(FleetMembership.MAX_LEFT);
    assertThat(last.next().left().get(FleetMembership.MAX_LEFT - 1).facet())
        .isEqualTo(FleetFacets.typeStatus("charger", "s38"));
  }

  @Test
  void withoutMemoryEveryEventWritesItsFacets() {
    FleetMembership m = new FleetMembership(HOUR, 0);
    m.plan(event("M-1", T0, "charger", "normal"), false);
    assertThat(m.plan(event("M-1", T0 + 1, "charger", "normal"), false).add()).hasSize(4);
  }
}
