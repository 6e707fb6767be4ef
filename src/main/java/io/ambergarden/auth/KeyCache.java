package io.ambergarden.auth;

import io.vertx.core.Future;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * API keys read from the store, remembered briefly so a request rarely waits for Cassandra.
 *
 * <ul>
 *   <li>Younger than half of {@code refresh}: used as is.
 *   <li>Older than that: still used, and read again in the background, so steady traffic never
 *       waits.
 *   <li>Older than {@code refresh}: the request waits for a fresh read. A key revoked anywhere is
 *       therefore refused here within {@code refresh} plus one read.
 *   <li>If that read fails (Cassandra down) and the entry is younger than {@code maxStale}, the
 *       remembered answer is used, so ingest can go on through a store outage.
 * </ul>
 *
 * Unknown ids are remembered too, so random ids cannot make every request read the store. Both maps
 * are bounded by {@code maxEntries}; the least recently used entry goes first. Safe to share
 * between event loops.
 */
public final class KeyCache {
  private final Function<String, Future<Optional<KeyRecord>>> loader;
  private final long refreshMillis;
  private final long maxStaleMillis;
  private final int maxEntries;
  private final LongSupplier clock;
  private final Map<String, Entry> entries;
  private final Map<String, Future<Optional<KeyRecord>>> loading = new HashMap<>();

  private record Entry(Optional<KeyRecord> value, long loadedAt) {}

  public KeyCache(
      Function<String, Future<Optional<KeyRecord>>> loader,
      long refreshMillis,
      long maxStaleMillis,
      int maxEntries,
      LongSupplier clockMillis) {
    this.loader = loader;
    this.refreshMillis = refreshMillis;
    this.maxStaleMillis = maxStaleMillis;
    this.maxEntries = maxEntries;
    this.clock = clockMillis;
    this.entries =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
            return size() > KeyCache.this.maxEntries;
          }
        };
  }

  /** The record of {@code id}, empty if no such key exists; fails only if it cannot be known. */
  public Future<Optional<KeyRecord>> get(String id) {
    long now = clock.getAsLong();
    Entry e;
    synchronized (this) {
      e = entries.get(id);
    }
    if (e != null) {
      long age = now - e.loadedAt;
      if (age < refreshMillis / 2) {
        return Future.succeededFuture(e.value);
      }
      if (age < refreshMillis) {
        load(id); // refresh ahead; this request does not wait
        return Future.succeededFuture(e.value);
      }
    }
    Entry stale = e;
    return load(id)
        .recover(
            err ->
                stale != null && now - stale.loadedAt < maxStaleMillis
                    ? Future.succeededFuture(stale.value)
                    : Future.failedFuture(err));
  }

  /** Forgets {@code id}, so the next request reads the store (after a local revoke). */
  public synchronized void invalidate(String id) {
    entries.remove(id);
  }

  public synchronized int size() {
    return entries.size();
  }

  private Future<Optional<KeyRecord>> load(String id) {
    Future<Optional<KeyRecord>> pending;
    synchronized (this) {
      pending = loading.get(id);
      if (pending != null) {
        return pending;
      }
      if (loading.size() >= maxEntries) {
        return Future.failedFuture("too many key lookups in flight");
      }
    }
    long started = clock.getAsLong();
    Future<Optional<KeyRecord>> f;
    try {
      f = loader.apply(id);
    } catch (RuntimeException ex) {
      f = Future.failedFuture(ex);
    }
    synchronized (this) {
      if (!f.isComplete()) {
        loading.put(id, f);
      }
    }
    return f.andThen(
        ar -> {
          synchronized (this) {
            loading.remove(id);
            if (ar.succeeded()) {
              // stamped with the start of the read: a revocation that raced it is seen next time
              entries.put(id, new Entry(ar.result(), started));
            }
          }
        });
  }
}
