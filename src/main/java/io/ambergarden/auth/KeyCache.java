package io.ambergarden.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.vertx.core.Future;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * API keys read from the store, remembered so a request rarely waits for Cassandra.
 *
 * <ul>
 *   <li>Younger than half of {@code refresh}: used as is.
 *   <li>Older than that: still used, and read again in the background, so steady traffic never
 *       waits.
 *   <li>Older than {@code refresh}: the request waits for a fresh read. A key revoked anywhere is
 *       therefore refused here within {@code refresh} plus one read, while the store can be read.
 *   <li>While the store cannot be read, {@link #getThroughOutage} answers with the last verified
 *       record of any age (known keys keep working for the whole outage), and {@link #get} only
 *       with one younger than {@code maxStale} (long-lived sessions). After a failed read, until a
 *       read succeeds, remembered keys are answered at once and read again behind the answer (at
 *       most once per {@code retryAfter}); an id not remembered fails at once during that pause. No
 *       request waits for a driver timeout per key, and a key revoked while the store answers again
 *       is refused within {@code retryAfter} plus {@code refresh}.
 * </ul>
 *
 * Keys that exist and ids that do not are remembered apart, each bounded: a flood of random ids
 * fills only the negative side, where each id is remembered for {@code negativeTtl}, so it costs at
 * most one store read per id per TTL and evicts no real key. Safe to share between event loops.
 */
public final class KeyCache {
  private final Function<String, Future<Optional<KeyRecord>>> loader;
  private final long refreshMillis;
  private final long maxStaleMillis;
  private final long retryAfterMillis;
  private final int maxLoading;
  private final LongSupplier clock;
  private final Cache<String, Entry> known;
  private final Cache<String, Boolean> unknown;
  private final Map<String, Future<Optional<KeyRecord>>> loading = new HashMap<>();
  private volatile boolean storeFailing;
  private volatile long storeRetryAt;

  private record Entry(KeyRecord value, long loadedAt) {}

  /** Sizes and times of a {@link KeyCache}. */
  public record Limits(
      int maxKnown,
      long refreshMillis,
      long maxStaleMillis,
      int maxUnknown,
      long negativeTtlMillis,
      long retryAfterMillis) {}

  public KeyCache(
      Function<String, Future<Optional<KeyRecord>>> loader,
      Limits limits,
      LongSupplier clockMillis) {
    this.loader = loader;
    this.refreshMillis = limits.refreshMillis();
    this.maxStaleMillis = limits.maxStaleMillis();
    this.retryAfterMillis = limits.retryAfterMillis();
    this.maxLoading = Math.max(1, Math.min(limits.maxKnown(), limits.maxUnknown()));
    this.clock = clockMillis;
    // maintenance on the calling thread: eviction is exact when a test looks, and cheap
    this.known =
        Caffeine.newBuilder().maximumSize(limits.maxKnown()).executor(Runnable::run).build();
    this.unknown =
        Caffeine.newBuilder()
            .maximumSize(limits.maxUnknown())
            .expireAfterWrite(Math.max(1, limits.negativeTtlMillis()), TimeUnit.MILLISECONDS)
            .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clockMillis.getAsLong()))
            .executor(Runnable::run)
            .build();
  }

  /**
   * The record of {@code id}, empty if no such key exists; fails only if it cannot be known. While
   * the store cannot be read, a remembered record is the answer for {@code maxStale} after its last
   * read.
   */
  public Future<Optional<KeyRecord>> get(String id) {
    return lookup(id, maxStaleMillis);
  }

  /**
   * As {@link #get}, but while the store cannot be read a remembered record is the answer however
   * old it is: a request with a known key goes on through a store outage of any length.
   */
  public Future<Optional<KeyRecord>> getThroughOutage(String id) {
    return lookup(id, Long.MAX_VALUE);
  }

  private Future<Optional<KeyRecord>> lookup(String id, long staleLimit) {
    long now = clock.getAsLong();
    Entry e = known.getIfPresent(id);
    if (e != null) {
      long age = now - e.loadedAt;
      if (age < refreshMillis / 2) {
        return Future.succeededFuture(Optional.of(e.value));
      }
      if (age < refreshMillis) {
        if (storeMayAnswer(now)) {
          load(id); // refresh ahead; this request does not wait
        }
        return Future.succeededFuture(Optional.of(e.value));
      }
    } else if (unknown.getIfPresent(id) != null) {
      return Future.succeededFuture(Optional.empty());
    }
    Entry stale = e;
    boolean usable = stale != null && now - stale.loadedAt < staleLimit;
    if (storeFailing) {
      // the last read failed: a remembered key is answered at once, and read again behind it
      Future<Optional<KeyRecord>> retry =
          storeMayAnswer(now)
              ? load(id)
              : Future.failedFuture("the key store failed just now; not read again yet");
      if (usable) {
        return Future.succeededFuture(Optional.of(stale.value));
      }
      return retry;
    }
    return load(id)
        .recover(
            err ->
                usable
                    ? Future.succeededFuture(Optional.of(stale.value))
                    : Future.failedFuture(err));
  }

  /** Forgets {@code id}, so the next request reads the store (after a local create or revoke). */
  public void invalidate(String id) {
    known.invalidate(id);
    unknown.invalidate(id);
  }

  /** Keys remembered (existing ones only). */
  public long size() {
    known.cleanUp();
    return known.estimatedSize();
  }

  /** Ids remembered as unknown. */
  public long unknownSize() {
    unknown.cleanUp();
    return unknown.estimatedSize();
  }

  private boolean storeMayAnswer(long now) {
    return !storeFailing || now >= storeRetryAt;
  }

  private Future<Optional<KeyRecord>> load(String id) {
    Future<Optional<KeyRecord>> pending;
    synchronized (loading) {
      pending = loading.get(id);
      if (pending != null) {
        return pending;
      }
      if (loading.size() >= maxLoading) {
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
    synchronized (loading) {
      if (!f.isComplete()) {
        loading.put(id, f);
      }
    }
    return f.andThen(
        ar -> {
          synchronized (loading) {
            loading.remove(id);
          }
          if (ar.failed()) {
            storeRetryAt = clock.getAsLong() + retryAfterMillis;
            storeFailing = true;
            return;
          }
          storeFailing = false;
          if (ar.result().isPresent()) {
            // stamped with the start of the read: a revocation that raced it is seen next time
            known.put(id, new Entry(ar.result().get(), started));
            unknown.invalidate(id);
          } else {
            known.invalidate(id);
            unknown.put(id, Boolean.TRUE);
          }
        });
  }
}
