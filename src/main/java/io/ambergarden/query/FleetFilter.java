package io.ambergarden.query;

import io.ambergarden.bus.FleetQuery;
import io.ambergarden.cassandra.FleetFacets;

/**
 * A fleet list's filter: the index facet it reads, and the check each device's current state must
 * pass. A device whose state is not in the facet any more (it changed type or status since its
 * pointer was written) is stale; one in the facet that fails the rest of the filter (abnormal with
 * a status, abnormal=false) is merely left out.
 */
record FleetFilter(String type, String status, Boolean abnormal) {
  static FleetFilter of(FleetQuery.Request q) {
    return new FleetFilter(q.type(), q.status(), q.abnormal());
  }

  String facet() {
    return FleetFacets.forFilter(type, status, abnormal);
  }

  /** True when a device in this state belongs to the facet the filter reads. */
  boolean inFacet(String stateType, String stateStatus, boolean stateAbnormal) {
    return FleetFacets.of(stateType, stateStatus, stateAbnormal).contains(facet());
  }

  boolean matches(String stateType, String stateStatus, boolean stateAbnormal) {
    return (type == null || type.equals(stateType))
        && (status == null || status.equals(stateStatus))
        && (abnormal == null || abnormal == stateAbnormal)
        && inFacet(stateType, stateStatus, stateAbnormal);
  }
}
