package io.ambergarden.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.vertx.core.Future;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * When each API key was last read from the store and found valid. The key cache answers from a
 * remembered entry while the store is down, so its answer alone cannot say whether a key is still
 * confirmed; an open socket needs that to close once its key has gone unconfirmed for longer than
 * {@code auth.key-cache.max-stale}. Bounded by the key cache's size; a key pushed out counts as
 * unconfirmed until its next successful read.
 */
final class KeyConfirmations {
  private final Cache<String, Long> confirmedAt;
  private final long windowMillis;

  KeyConfirmations(int maxKeys, long windowMillis) {
    this.confirmedAt = Caffeine.newBuilder().maximumSize(maxKeys).executor(Runnable::run).build();
    this.windowMillis = windowMillis;
  }

  /** {@code loader}, noting each read that finds the key valid, stamped with the read's start. */
  Function<String, Future<Optional<KeyRecord>>> noting(
      Function<String, Future<Optional<KeyRecord>>> loader, LongSupplier clockMillis) {
    return id -> {
      long started = clockMillis.getAsLong();
      return loader
          .apply(id)
          .andThen(
              ar -> {
                if (ar.succeeded() && ar.result().isPresent() && !ar.result().get().revoked()) {
                  confirmedAt.asMap().merge(id, started, Math::max);
                }
              });
    };
  }

  /** True if {@code id} was last confirmed no more than the window before {@code nowMillis}. */
  boolean recent(String id, long nowMillis) {
    Long at = confirmedAt.getIfPresent(id);
    return at != null && nowMillis - at <= windowMillis;
  }
}
