package io.ambergarden.write;

import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.cassandra.DetailSlices.Slice;
import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer's view of device_slices: loads what it does not know of a (device, bucket) before the
 * bucket's first write (the slices another writer or an earlier run created, so a redelivered event
 * lands where it landed before), and creates slices with lightweight transactions ({@code IF NOT
 * EXISTS}: the first writer's choice holds for all). The decisions are {@link HotBuckets}'. Used on
 * the writer's event loop only.
 */
final class SliceRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(SliceRegistry.class);

  private final CassandraClient client;
  private final WriterStatements cql;
  private final HotBuckets hot;
  private final boolean enabled;
  private final AmberConfig config;
  private final Map<HotBuckets.Key, Future<HotBuckets.State>> loading = new HashMap<>();

  /**
   * Splits being created: a request of the key waits for its split, so placement never races it.
   */
  private final Map<HotBuckets.Key, Future<?>> splitting = new HashMap<>();

  SliceRegistry(CassandraClient client, WriterStatements cql, HotBuckets hot, AmberConfig config) {
    this.client = client;
    this.cql = cql;
    this.hot = hot;
    this.config = config;
    this.enabled = config.hot().enabled();
  }

  /**
   * The state of every key; loads the ones not known (one partition read each) and waits for a
   * split in progress, so every event of a request is placed by the slices that will stay.
   */
  Future<Map<HotBuckets.Key, HotBuckets.State>> states(Collection<HotBuckets.Key> keys) {
    Map<HotBuckets.Key, HotBuckets.State> out = new HashMap<>();
    List<Future<?>> loads = new ArrayList<>();
    for (HotBuckets.Key k : keys) {
      HotBuckets.State s = hot.get(k);
      if (s != null) {
        out.put(k, s);
      } else {
        loads.add(loadOnce(k).onSuccess(st -> out.put(k, st)));
      }
      Future<?> split = splitting.get(k);
      if (split != null) {
        loads.add(split.recover(err -> Future.succeededFuture()));
      }
    }
    return loads.isEmpty() ? Future.succeededFuture(out) : Future.all(loads).map(out);
  }

  /** Concurrent requests of one key share its load. */
  private Future<HotBuckets.State> loadOnce(HotBuckets.Key k) {
    Future<HotBuckets.State> f = loading.get(k);
    if (f == null) {
      Future<HotBuckets.State> started = load(k);
      if (!started.isComplete()) {
        loading.put(k, started);
        started.onComplete(ar -> loading.remove(k, started));
      }
      f = started;
    }
    return f;
  }

  private Future<HotBuckets.State> load(HotBuckets.Key k) {
    Future<HotBuckets.State> loaded;
    if (!enabled) {
      loaded = Future.succeededFuture(new HotBuckets.State(k.bucket(), List.of()));
    } else {
      loaded =
          client
              .executeWithFullFetch(
                  cql.slices()
                      .bind(k.deviceId(), Instant.ofEpochMilli(k.bucket()))
                      .setIdempotent(true)
                      .setExecutionProfileName(CassandraClients.READ_PROFILE))
              .compose(
                  rows -> {
                    List<Slice> known = new ArrayList<>();
                    rows.forEach(r -> known.add(slice(r)));
                    Slice initial = known.isEmpty() ? hot.initialSlice(k) : null;
                    if (initial == null) {
                      return Future.succeededFuture(new HotBuckets.State(k.bucket(), known));
                    }
                    return create(k, initial)
                        .map(s -> new HotBuckets.State(k.bucket(), List.of(s)));
                  });
    }
    return loaded.onSuccess(s -> hot.put(k, s));
  }

  /** Proposes the splits the states now call for; their rows apply from the next request on. */
  void splitIfHot(Map<HotBuckets.Key, HotBuckets.State> touched) {
    touched.forEach(
        (k, s) -> {
          Slice split = hot.splitFor(s);
          if (split == null) {
            return;
          }
          s.splitPending = true;
          Future<Slice> created = create(k, split);
          splitting.put(k, created);
          created
              .onSuccess(
                  slice -> {
                    s.addSlice(slice);
                    LOG.info(
                        "hot device {}: bucket {} split from {} into {} partitions",
                        k.deviceId(),
                        Instant.ofEpochMilli(k.bucket()),
                        Instant.ofEpochMilli(slice.start()),
                        slice.salts());
                  })
              .onFailure(
                  err -> LOG.warn("slice of {} not created: {}", k.deviceId(), err.toString()))
              .onComplete(
                  ar -> {
                    s.splitPending = false;
                    splitting.remove(k, created);
                  });
        });
  }

  /** The slice that holds at (device, bucket, start): ours, or the one another writer made. */
  private Future<Slice> create(HotBuckets.Key k, Slice s) {
    Statement<?> insert =
        cql.createSlice()
            .bind(
                k.deviceId(),
                Instant.ofEpochMilli(k.bucket()),
                Instant.ofEpochMilli(s.start()),
                s.salts(),
                RowKeys.ttlSeconds(
                    k.bucket() + 2 * config.cassandra().bucket().length.toMillis(),
                    System.currentTimeMillis(),
                    config.events().retention()))
            .setIdempotent(true);
    return client
        .executeWithFullFetch(insert)
        .map(
            rows -> {
              Row r = rows.get(0);
              return r.getBoolean("[applied]") ? s : new Slice(s.start(), r.getInt("salts"));
            });
  }

  private static Slice slice(Row r) {
    return new Slice(r.getInstant(0).toEpochMilli(), r.getInt(1));
  }

  /** The placement of a request's events, given the states of all its (device, bucket) keys. */
  WritePlan.Placement placement(long bucketMillis, Map<HotBuckets.Key, HotBuckets.State> touched) {
    return new WritePlan.Placement() {
      @Override
      public long partitionOf(Event e, long bucket) {
        return hot.place(touched.get(new HotBuckets.Key(e.deviceId(), bucket)), e);
      }

      @Override
      public int saltOf(Event e) {
        long bucket = Math.floorDiv(e.ts(), bucketMillis) * bucketMillis;
        return HotBuckets.saltOf(touched.get(new HotBuckets.Key(e.deviceId(), bucket)), e);
      }
    };
  }
}
