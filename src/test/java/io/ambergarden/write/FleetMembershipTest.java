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
    m.plan(event("M-1", T0, "charger", "normal"), false);
    FleetMembership.Change c = m.plan(event("M-1", T0 + 1000, "charger", "normal"), false);
    assertThat(c.isEmpty()).isTrue();
  }

  @Test
  void aStatusChangeWritesTheNewFacetsAndRemovesTheOldOnesAtTheNewEventsTime() {
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
    assertThat(c.remove())
        .containsExactlyInAnyOrder(
            FleetFacets.status("normal"), FleetFacets.typeStatus("charger", "normal"));
    assertThat(c.writeTs()).isEqualTo((T0 + 1000) * 1000);
  }

  @Test
  void aTypeChangeRemovesEveryFacetOfTheOldType() {
    FleetMembership m = new FleetMembership(HOUR, 100);
    m.plan(event("M-1", T0, "charger", "fault"), true);
    FleetMembership.Change c = m.plan(event("M-1", T0 + 1000, "meter", "fault"), true);
    assertThat(c.remove())
        .containsExactlyInAnyOrder(
            FleetFacets.type("charger"),
            FleetFacets.typeStatus("charger", "fault"),
            FleetFacets.typeAbnormal("charger"));
  }

  @Test
  void aLateOlderEventWritesNothing() {
    FleetMembership m = new FleetMembership(HOUR, 100);
    m.plan(event("M-1", T0 + 5000, "charger", "normal"), false);
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
    // the fault request deletes the normal pointer at T0+1000; this one must write it again, later
    assertThat(back.add()).contains(FleetFacets.status("normal"));
    assertThat(back.remove()).contains(FleetFacets.status("fault"));
  }

  @Test
  void aFailedChangeIsForgottenSoTheNextEventRewritesTheDevice() {
    FleetMembership m = new FleetMembership(HOUR, 100);
    FleetMembership.Change first = m.plan(event("M-1", T0, "charger", "normal"), false);
    m.failed(first);
    assertThat(m.plan(event("M-1", T0 + 1000, "charger", "normal"), false).add()).isNotEmpty();
  }

  @Test
  void unchangedRowsAreRewrittenOncePerRefreshAndActivityEveryFiveMinutes() {
    FleetMembership m = new FleetMembership(HOUR, 100);
    m.plan(event("M-1", T0, "charger", "normal"), false);
    FleetMembership.Change fourMinutes =
        m.plan(event("M-1", T0 + 240_000, "charger", "normal"), false);
    assertThat(fourMinutes.isEmpty()).isTrue();
    FleetMembership.Change sixMinutes =
        m.plan(event("M-1", T0 + 360_000, "charger", "normal"), false);
    assertThat(sixMinutes.activity()).isTrue();
    assertThat(sixMinutes.add()).isEmpty();
    FleetMembership.Change anHour = m.plan(event("M-1", T0 + HOUR, "charger", "normal"), false);
    assertThat(anHour.add()).hasSize(4);
    assertThat(anHour.remove()).isEmpty();
  }

  @Test
  void withoutMemoryEveryEventWritesItsFacets() {
    FleetMembership m = new FleetMembership(HOUR, 0);
    m.plan(event("M-1", T0, "charger", "normal"), false);
    assertThat(m.plan(event("M-1", T0 + 1, "charger", "normal"), false).add()).hasSize(4);
  }
}
