package io.ambergarden.query;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.bus.FleetQuery;
import io.ambergarden.cassandra.CqlTypes;
import io.ambergarden.cassandra.FleetPointers;
import io.ambergarden.config.AmberConfig;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet list, in device-id order: reads the filter's facet of fleet_index (one partition per
 * shard, merged by device id) and each candidate's current state from latest_by_device, which is
 * the truth: a pointer whose device left the facet (a newer event changed its type or status) is
 * skipped, and deleted at the pointer's own write time once that is one refresh older than the
 * state (before that a writer may still trust it for a newer event, see {@link FleetPointers}), so
 * a newer or trusted pointer is never touched. A pointer newer than the state it points at (its
 * event's state write still in flight) is skipped, not deleted. A page reads at most {@value
 * #MAX_ROUNDS} rounds, so it may be short with a cursor.
 */
final class FleetReader {
  private static final Logger LOG = LoggerFactory.getLogger(FleetReader.class);
  static final int MAX_ROUNDS = 8;
  private static final int PARALLELISM = 32;

  private final CassandraReads reads;
  private final QueryStatements cql;
  private final AmberConfig config;
  private final long refreshMillis;

  FleetReader(CassandraReads reads, QueryStatements cql, AmberConfig config) {
    this.reads = reads;
    this.cql = cql;
    this.config = config;
    this.refreshMillis = config.fleet().refresh().toMillis();
  }

  Future<FleetQuery.Reply> page(FleetQuery.Request q) {
    Page p = new Page(q);
    return p.round(q.after() == null ? "" : q.after(), 0).map(v -> p.reply());
  }

  /** A pointer row: its shard and write time. */
  private record Pointer(int shard, long writeTs) {}

  private final class Page {
    final FleetQuery.Request q;
    final FleetFilter filter;
    final String facet;
    final int shards = config.fleet().shards();
    final List<FleetQuery.Device> items = new ArrayList<>();
    String lastExamined;
    boolean more;

    Page(FleetQuery.Request q) {
      this.q = q;
      this.filter = FleetFilter.of(q);
      this.facet = filter.facet();
    }

    Future<Void> round(String after, int n) {
      int want = q.limit() - items.size();
      // a fair share per shard, with room for skew; KeysetMerge keeps the order exact anyway
      int perShard = Math.min(want, Math.max(8, 2 * ((want + shards - 1) / shards)));
      List<Statement<?>> statements = new ArrayList<>(shards);
      for (int s = 0; s < shards; s++) {
        statements.add(cql.fleetShard().bind(facet, s, after, perShard));
      }
      return reads
          .readEach(statements, PARALLELISM)
          .compose(
              results -> {
                Map<String, Pointer> pointers = new HashMap<>();
                List<List<String>> ids = new ArrayList<>(shards);
                for (int s = 0; s < results.size(); s++) {
                  List<String> shardIds = new ArrayList<>();
                  for (Row r : results.get(s)) {
                    shardIds.add(r.getString(0));
                    pointers.put(r.getString(0), new Pointer(s, r.getLong(2)));
                  }
                  ids.add(shardIds);
                }
                KeysetMerge.Result merged = KeysetMerge.merge(ids, perShard);
                List<String> candidates =
                    merged.keys().subList(0, Math.min(want, merged.keys().size()));
                boolean left = merged.more() || merged.keys().size() > candidates.size();
                if (candidates.isEmpty()) {
                  more = left;
                  return Future.succeededFuture();
                }
                return verify(candidates, pointers)
                    .compose(
                        v -> {
                          lastExamined = candidates.get(candidates.size() - 1);
                          if (items.size() < q.limit() && left && n + 1 < MAX_ROUNDS) {
                            return round(lastExamined, n + 1);
                          }
                          more = left;
                          return Future.succeededFuture();
                        });
              });
    }

    /** Reads each candidate's state; keeps the matching ones, in order; repairs stale pointers. */
    Future<Void> verify(List<String> candidates, Map<String, Pointer> pointers) {
      List<Statement<?>> states = new ArrayList<>(candidates.size());
      candidates.forEach(id -> states.add(cql.fleetState().bind(id)));
      return reads
          .readEach(states, PARALLELISM)
          .map(
              results -> {
                for (int i = 0; i < candidates.size(); i++) {
                  String id = candidates.get(i);
                  List<Row> rows = results.get(i);
                  if (rows.isEmpty()) {
                    continue; // expired, or its first state write is still in flight
                  }
                  Row r = rows.get(0);
                  String type = r.getString(1);
                  String status = r.getString(2);
                  Integer code = r.isNull(3) ? null : r.getInt(3);
                  boolean abnormal = config.events().isAbnormal(code, status);
                  if (filter.matches(type, status, abnormal)) {
                    items.add(
                        new FleetQuery.Device(
                            id,
                            type,
                            r.getInstant(0).toEpochMilli(),
                            status,
                            code,
                            r.get(4, CqlTypes.METRICS),
                            abnormal));
                  } else if (!filter.inFacet(type, status, abnormal)
                      && pointers.get(id).writeTs()
                          <= FleetPointers.deleteTs(r.getLong(5), refreshMillis)) {
                    repair(id, pointers.get(id));
                  }
                }
                return null;
              });
    }

    void repair(String id, Pointer p) {
      reads
          .write(cql.fleetDelete().bind(p.writeTs(), facet, p.shard(), id))
          .onFailure(err -> LOG.debug("stale fleet pointer of {} kept: {}", id, err.toString()));
    }

    FleetQuery.Reply reply() {
      return new FleetQuery.Reply(items, more ? lastExamined : null);
    }
  }
}
