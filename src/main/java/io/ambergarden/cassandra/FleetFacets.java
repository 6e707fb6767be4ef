package io.ambergarden.cassandra;

import java.util.ArrayList;
import java.util.List;

/**
 * The facets of the fleet index: each names a set of devices ('all', one type, one status,
 * abnormal, and type combined with status or abnormal), stored as rows of fleet_index under (facet,
 * shard). Type and status values cannot contain a newline (ids and printable ASCII), so the
 * newline-separated names never collide. Values are always bound, never part of CQL text.
 */
public final class FleetFacets {
  public static final String ALL = "all";
  public static final String ABNORMAL = "abnormal";
  private static final String SEP = "\n";

  private FleetFacets() {}

  public static String type(String type) {
    return "type" + SEP + type;
  }

  public static String status(String status) {
    return "status" + SEP + status;
  }

  public static String typeStatus(String type, String status) {
    return type(type) + SEP + status(status);
  }

  public static String typeAbnormal(String type) {
    return type(type) + SEP + ABNORMAL;
  }

  /** Every facet a device in this state belongs to, in a stable order. */
  public static List<String> of(String type, String status, boolean abnormal) {
    List<String> out = new ArrayList<>(6);
    out.add(ALL);
    if (type != null) {
      out.add(type(type));
    }
    if (status != null) {
      out.add(status(status));
    }
    if (abnormal) {
      out.add(ABNORMAL);
    }
    if (type != null && status != null) {
      out.add(typeStatus(type, status));
    }
    if (type != null && abnormal) {
      out.add(typeAbnormal(type));
    }
    return List.copyOf(out);
  }

  /**
   * The facet a filtered list reads: the narrowest one the filter names. What it does not cover
   * (abnormal with a status, abnormal=false) is checked on each device's state.
   */
  public static String forFilter(String type, String status, Boolean abnormal) {
    boolean onlyAbnormal = Boolean.TRUE.equals(abnormal);
    if (type != null && status != null) {
      return typeStatus(type, status);
    }
    if (type != null) {
      return onlyAbnormal ? typeAbnormal(type) : type(type);
    }
    if (status != null) {
      return status(status);
    }
    return onlyAbnormal ? ABNORMAL : ALL;
  }

  /** The shard of a device in every facet. */
  public static int shard(String deviceId, int shards) {
    return RowKeys.salt(deviceId, shards);
  }
}
