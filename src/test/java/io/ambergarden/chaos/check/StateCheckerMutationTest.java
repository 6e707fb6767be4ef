package io.ambergarden.chaos.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.chaos.ChaosEvent;
import io.ambergarden.chaos.ChaosFindings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The checker's mutation test: a consistent recorded state passes, and each anomaly planted in it
 * fails the invariant that names it.
 */
class StateCheckerMutationTest {
  private StateFixture fx;

  @BeforeEach
  void consistentRun() {
    fx = new StateFixture();
  }

  private ChaosFindings check() {
    ChaosFindings f = new ChaosFindings();
    StateChecker.check(f, fx.ledger, fx.state(), fx.writes, StateFixture.RULE);
    return f;
  }

  private static List<String> failing(ChaosFindings f) {
    return f.invariants().stream()
        .filter(i -> !i.holds())
        .map(ChaosFindings.Invariant::name)
        .toList();
  }

  private void assertFails(String invariant) {
    ChaosFindings f = check();
    assertThat(failing(f)).as("failing invariants").contains(invariant);
  }

  private static <T> List<T> replaceFirst(
      List<T> rows, java.util.function.Predicate<T> which, UnaryOperator<T> with) {
    List<T> out = new ArrayList<>(rows);
    for (int i = 0; i < out.size(); i++) {
      if (which.test(out.get(i))) {
        out.set(i, with.apply(out.get(i)));
        return out;
      }
    }
    throw new AssertionError("no row to mutate");
  }

  @Test
  void theConsistentRecordedStatePassesEveryInvariant() {
    ChaosFindings f = check();
    assertThat(failing(f)).isEmpty();
    assertThat(f.invariants()).hasSizeGreaterThanOrEqualTo(20);
    assertThat(fx.firstAbnormal()).isNotNull();
    assertThat(f.figures()).containsEntry("distinct events stored", 39);
  }

  @Test
  void aLostAcknowledgedEventFails() {
    String lost = fx.storedEvents.get(5).eventId();
    fx.byDevice =
        new ArrayList<>(fx.byDevice.stream().filter(r -> !r.eventId().equals(lost)).toList());
    assertFails(StateChecker.EVENTS_MISSING);
  }

  @Test
  void aDuplicateWriteBeyondTheFaultsBoundFails() {
    fx.writes = new WritePath(fx.ledger.sendCount() + 1, List.of(), 0, 0, Map.of());
    assertFails(StateChecker.WRITE_DUPLICATES);
  }

  @Test
  void aDuplicateWriteWithinTheBoundOfACrashPasses() {
    fx.writes =
        new WritePath(
            fx.ledger.sendCount() + 1,
            List.of(new WritePath.Disruption("instance 1 killed", 0, 1)),
            0,
            0,
            Map.of());
    assertThat(failing(check())).isEmpty();
  }

  @Test
  void aDuplicateDetailRowFails() {
    fx.byDevice.add(fx.byDevice.get(3));
    assertFails(StateChecker.DETAIL_DUPLICATES);
  }

  @Test
  void aDeviceCounterOneAboveTheDistinctEventsOfReconciledHoursFails() {
    State.DeviceCounters c = fx.apiCounters.get("d1");
    fx.apiCounters.put(
        "d1",
        new State.DeviceCounters(
            c.total() + 1, c.byStatus(), c.exactThrough(), c.countedThrough()));
    assertFails(StateChecker.DEVICE_COUNTERS);
  }

  @Test
  void aDeviceCounterOneBelowTheDistinctEventsOfReconciledHoursFails() {
    State.DeviceCounters c = fx.apiCounters.get("d1");
    Map<String, Long> byStatus = new HashMap<>(c.byStatus());
    byStatus.merge("normal", -1L, Long::sum);
    fx.apiCounters.put(
        "d1", new State.DeviceCounters(c.total(), byStatus, c.exactThrough(), c.countedThrough()));
    assertFails(StateChecker.DEVICE_COUNTERS);
  }

  @Test
  void aDayCounterOneAboveOrBelowFails() {
    State.DayStats d = fx.apiDays.get(0);
    Map<String, Long> byCode = new HashMap<>(d.byCode());
    byCode.merge("200", 1L, Long::sum);
    fx.apiDays =
        List.of(
            new State.DayStats(
                d.day(),
                d.total(),
                byCode,
                d.byStatus(),
                d.byType(),
                d.exactThrough(),
                d.countedThrough()));
    assertFails(StateChecker.DAY_STATS);

    fx = new StateFixture();
    State.DayStats e = fx.apiDays.get(0);
    fx.apiDays =
        List.of(
            new State.DayStats(
                e.day(),
                e.total() - 1,
                e.byCode(),
                e.byStatus(),
                e.byType(),
                e.exactThrough(),
                e.countedThrough()));
    assertFails(StateChecker.DAY_STATS);
  }

  @Test
  void anExactCountRowOffByOneFails() {
    fx.deviceExact =
        replaceFirst(
            fx.deviceExact,
            r -> true,
            r -> new State.ExactRow(r.deviceId(), r.hour(), r.name(), r.events() + 1));
    assertFails(StateChecker.EXACT_DEVICE);
    fx = new StateFixture();
    fx.statusExact =
        replaceFirst(
            fx.statusExact,
            r -> r.dimension().equals("type"),
            r -> new State.DimensionRow(r.hour(), r.dimension(), r.value(), r.events() - 1));
    assertFails(StateChecker.EXACT_STATUS);
  }

  /** The open hours of a device: exactThrough null, so only the bounds apply. */
  private void openHours(String device, long total, Long countedThrough) {
    State.DeviceCounters c = fx.apiCounters.get(device);
    Map<String, Long> byStatus = new HashMap<>();
    fx.ledger.byDevice().get(device).forEach(e -> byStatus.merge(e.status(), 0L, Long::sum));
    // all of the total on the device's commonest status, the rest at its acknowledged count
    long rest = 0;
    for (ChaosEvent e : fx.ledger.byDevice().get(device)) {
      if (!e.status().equals("normal") && fx.ledger.isAcked(e.eventId())) {
        byStatus.merge(e.status(), 1L, Long::sum);
        rest++;
      }
    }
    byStatus.put("normal", total - rest);
    fx.apiCounters.put(device, new State.DeviceCounters(total, byStatus, null, countedThrough));
    fx.reconciledBefore = Long.MIN_VALUE; // nothing had to be reconciled yet
  }

  private long acked(String device) {
    return fx.ledger.byDevice().get(device).stream()
        .filter(e -> fx.ledger.isAcked(e.eventId()))
        .count();
  }

  private long sends(String device) {
    return fx.ledger.byDevice().get(device).stream()
        .mapToLong(e -> fx.ledger.sends(e.eventId()))
        .sum();
  }

  @Test
  void anOpenHourCounterAboveTheSendsFails() {
    openHours("d0", sends("d0") + 1, fx.settledAt);
    assertFails(StateChecker.DEVICE_COUNTERS);
  }

  @Test
  void anOpenHourCounterAboveTheSendsPassesOnlyWithinTheEventsOfUnknownOutcome() {
    // a resend after a timeout may count its events twice: of device cells here, 2 events
    fx.writes = new WritePath(fx.ledger.sendCount(), List.of(), 0, 1, Map.of("device", 2L));
    openHours("d0", sends("d0") + 2, fx.settledAt);
    assertThat(failing(check())).doesNotContain(StateChecker.DEVICE_COUNTERS);

    fx = new StateFixture();
    fx.writes = new WritePath(fx.ledger.sendCount(), List.of(), 0, 1, Map.of("device", 2L));
    openHours("d0", sends("d0") + 3, fx.settledAt);
    assertFails(StateChecker.DEVICE_COUNTERS);

    // the day stats' unknown events do not widen the device counters' bound
    fx = new StateFixture();
    fx.writes = new WritePath(fx.ledger.sendCount(), List.of(), 0, 1, Map.of("all", 100L));
    openHours("d0", sends("d0") + 1, fx.settledAt);
    assertFails(StateChecker.DEVICE_COUNTERS);
  }

  @Test
  void anOpenHourCounterBetweenTheAcknowledgedAndTheSendsPasses() {
    openHours("d0", sends("d0"), fx.settledAt);
    assertThat(failing(check())).doesNotContain(StateChecker.DEVICE_COUNTERS);
    fx = new StateFixture();
    openHours("d0", acked("d0"), fx.settledAt);
    assertThat(failing(check())).doesNotContain(StateChecker.DEVICE_COUNTERS);
  }

  @Test
  void anOpenHourCounterBelowTheAcknowledgedFailsOnlyOnceTheJournalIsCounted() {
    openHours("d0", acked("d0") - 1, fx.settledAt);
    assertFails(StateChecker.DEVICE_COUNTERS);
    fx = new StateFixture();
    openHours("d0", acked("d0") - 1, fx.settledAt - 1);
    assertThat(failing(check())).doesNotContain(StateChecker.DEVICE_COUNTERS);
  }

  @Test
  void aClosedHourNotReconciledInTimeFails() {
    openHours("d0", acked("d0"), fx.settledAt);
    fx.reconciledBefore = StateFixture.H0 + 2 * StateChecker.HOUR;
    assertFails(StateChecker.UNRECONCILED);
  }

  @Test
  void aWrongRollupFails() {
    fx.rollups =
        replaceFirst(
            fx.rollups,
            r -> true,
            r ->
                new State.RollupRow(
                    r.deviceId(),
                    r.hour(),
                    r.metric(),
                    r.count(),
                    r.min(),
                    r.max() + 0.01,
                    r.sum()));
    assertFails(StateChecker.ROLLUPS);
  }

  @Test
  void aServedRollupThatDiffersFromItsRowFails() {
    fx.apiRollups =
        replaceFirst(
            fx.apiRollups,
            r -> true,
            r ->
                new State.ServedRollup(
                    r.deviceId(), r.hour(), r.count() + 1, r.min(), r.max(), r.avg()));
    assertFails(StateChecker.API_ROLLUPS);
  }

  static Stream<Arguments> changedFields() {
    return Stream.of(
        Arguments.of(
            "code",
            (UnaryOperator<State.Row>)
                r ->
                    with(
                        r,
                        r.deviceType(),
                        r.status(),
                        r.code() + 1,
                        r.metrics(),
                        r.tags(),
                        r.payload())),
        Arguments.of(
            "status",
            (UnaryOperator<State.Row>)
                r ->
                    with(r, r.deviceType(), "alarm", r.code(), r.metrics(), r.tags(), r.payload())),
        Arguments.of("type", TYPE_CHANGED),
        Arguments.of(
            "metrics",
            (UnaryOperator<State.Row>)
                r ->
                    with(
                        r,
                        r.deviceType(),
                        r.status(),
                        r.code(),
                        Map.of("temperature", -1.0),
                        r.tags(),
                        r.payload())),
        Arguments.of(
            "tags",
            (UnaryOperator<State.Row>)
                r ->
                    with(
                        r,
                        r.deviceType(),
                        r.status(),
                        r.code(),
                        r.metrics(),
                        Map.of("site", "elsewhere"),
                        r.payload())),
        Arguments.of(
            "payload",
            (UnaryOperator<State.Row>)
                r ->
                    with(
                        r,
                        r.deviceType(),
                        r.status(),
                        r.code(),
                        r.metrics(),
                        r.tags(),
                        "{\"seq\":\"x\"}")));
  }

  static State.Row with(
      State.Row r,
      String type,
      String status,
      Integer code,
      Map<String, Double> metrics,
      Map<String, String> tags,
      String payload) {
    return new State.Row(
        r.deviceId(), r.ts(), r.eventId(), type, status, code, metrics, tags, payload);
  }

  @ParameterizedTest(name = "a changed {0} in a detail row fails")
  @MethodSource("changedFields")
  void aChangedFieldInADetailRowFails(String field, UnaryOperator<State.Row> change) {
    String id = fx.storedEvents.get(7).eventId();
    fx.byDevice = replaceFirst(fx.byDevice, r -> r.eventId().equals(id), change);
    assertFails(StateChecker.DETAIL_FIELDS);
  }

  /** A row whose device type is not the event's: wrong in every table that holds the type. */
  private static final UnaryOperator<State.Row> TYPE_CHANGED =
      r -> with(r, "other", r.status(), r.code(), r.metrics(), r.tags(), r.payload());

  /** The fields a slim by-type row holds besides its event id. */
  static Stream<Arguments> changedKeys() {
    return Stream.of(
        Arguments.of("type", TYPE_CHANGED),
        Arguments.of(
            "ts",
            (UnaryOperator<State.Row>)
                r -> slimRow(r.deviceId(), r.ts() + 1, r.eventId(), r.deviceType())),
        Arguments.of(
            "device id",
            (UnaryOperator<State.Row>)
                r -> slimRow("elsewhere", r.ts(), r.eventId(), r.deviceType())));
  }

  /** A by-type row as the slim index holds it: keys only. */
  private static State.Row slimRow(String deviceId, long ts, String eventId, String deviceType) {
    return new State.Row(deviceId, ts, eventId, deviceType, null, null, null, null, null);
  }

  @ParameterizedTest(name = "a changed {0} in a by-type row fails")
  @MethodSource("changedKeys")
  void aChangedKeyInAByTypeRowFails(String field, UnaryOperator<State.Row> change) {
    String id = fx.storedEvents.get(7).eventId();
    fx.byType = replaceFirst(fx.byType, r -> r.eventId().equals(id), change);
    assertFails(StateChecker.BY_TYPE_WRONG);
  }

  @Test
  void aStaleLatestFails() {
    ChaosEvent older = fx.olderEventOf("d2");
    fx.latest.put("d2", StateChecker.expected(older));
    fx.apiLatest.put("d2", StateChecker.expected(older));
    assertFails(StateChecker.LATEST);
  }

  @Test
  void aServedLatestThatDiffersFromTheTableFails() {
    fx.apiLatest.put("d2", StateChecker.expected(fx.olderEventOf("d2")));
    assertFails(StateChecker.API_LATEST);
  }

  @Test
  void aByTypeRowOfAnEventNeverSentFails() {
    fx.byType.add(new State.Row("d0", 1L, "never-sent", "pump", null, null, null, null, null));
    assertFails(StateChecker.BY_TYPE_WRONG);
  }

  @ParameterizedTest(name = "a served by-type event with a changed {0} fails")
  @MethodSource("changedFields")
  void aServedByTypeEventThatDiffersFromItsDetailRowFails(
      String field, UnaryOperator<State.Row> change) {
    String type = fx.apiByType.keySet().iterator().next();
    fx.apiByType.put(type, replaceFirst(fx.apiByType.get(type), r -> true, change));
    assertFails(StateChecker.API_BY_TYPE);
  }

  @Test
  void aServedByTypeListMissingAnEventFails() {
    String type = fx.apiByType.keySet().iterator().next();
    List<State.Row> served = new ArrayList<>(fx.apiByType.get(type));
    served.remove(0);
    fx.apiByType.put(type, served);
    assertFails(StateChecker.API_BY_TYPE);
  }

  @Test
  void aMissingByTypeRowFails() {
    String id = fx.storedEvents.get(11).eventId();
    fx.byType = new ArrayList<>(fx.byType.stream().filter(r -> !r.eventId().equals(id)).toList());
    assertFails(StateChecker.BY_TYPE_MISSING);
  }

  @Test
  void aServedEventListMissingAnEventFails() {
    List<State.Row> served = new ArrayList<>(fx.apiEvents.get("d0"));
    served.remove(0);
    fx.apiEvents.put("d0", served);
    assertFails(StateChecker.API_EVENTS);
  }

  @Test
  void aMissingAbnormalRowFails() {
    ChaosEvent e = fx.firstAbnormal();
    fx.abnormal =
        new ArrayList<>(
            fx.abnormal.stream()
                .filter(
                    r ->
                        !(r.deviceId().equals(e.deviceId())
                            && r.hour() == StateChecker.hourOf(e.ts())))
                .toList());
    assertFails(StateChecker.ABNORMAL);
  }

  @Test
  void aMissingFleetPointerFails() {
    fx.fleet.remove(0);
    assertFails(StateChecker.FLEET_INDEX);
  }

  @Test
  void aFleetItemThatDiffersFromTheStateFails() {
    fx.apiFleet =
        replaceFirst(
            fx.apiFleet,
            i -> true,
            i ->
                new State.FleetItem(
                    i.deviceId(),
                    i.deviceType(),
                    i.lastSeen() - 1,
                    i.status(),
                    i.code(),
                    i.metrics(),
                    i.abnormal()));
    assertFails(StateChecker.FLEET_API);
  }

  @Test
  void aDeviceMissingFromAFilteredFleetViewFails() {
    String filter = "status=normal";
    List<String> served = new ArrayList<>(fx.apiFleetFiltered.get(filter));
    served.remove(0);
    fx.apiFleetFiltered.put(filter, served);
    assertFails(StateChecker.FLEET_FILTERED);
  }

  @Test
  void aMissingDevicesByHourRowFails() {
    fx.devicesByHour.remove(0);
    assertFails(StateChecker.DEVICES_BY_HOUR);
  }

  @Test
  void aRowOfAnEventNeverSentFails() {
    fx.byDevice.add(
        new State.Row(
            "d0", StateFixture.H0, "never-sent", "meter", "normal", 200, Map.of(), Map.of(), null));
    assertFails(StateChecker.DETAIL_UNKNOWN);
  }
}
