package io.ambergarden.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.config.SecurityConfig;
import io.vertx.core.Future;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * An open socket's periodic check ({@link Gatekeeper#stillValid}) against a store that goes away:
 * the socket stays open while its key was confirmed within max-stale, and closes after that.
 */
class SocketRevalidationTest {
  private static final Duration REFRESH = Duration.ofSeconds(2);
  private static final Duration MAX_STALE = Duration.ofMinutes(5);

  /** The store: up (answers with the key as it is now), or down (every read fails). */
  private final AtomicLong now = new AtomicLong(1_000_000);

  private final AtomicInteger reads = new AtomicInteger();
  private volatile boolean storeUp = true;
  private volatile Instant revokedAt;
  private final KeyRecord key =
      new KeyRecord(
          "k1",
          "meter",
          new byte[32],
          Set.of(Scope.LIVE_READ),
          List.of(),
          0,
          Instant.EPOCH,
          "t",
          null);

  private Gatekeeper gate(Duration maxStale) {
    SecurityConfig.Access cfg =
        new SecurityConfig.Access(
            true,
            1000,
            REFRESH,
            maxStale,
            100,
            1000,
            Duration.ofSeconds(30),
            new SecurityConfig.Jwt(
                "", "", Duration.ofMinutes(10), "", "", Duration.ZERO, List.of()),
            List.of(),
            new SecurityConfig.HttpTls("", "", Duration.ofSeconds(10)),
            SecurityConfig.Access.NO_MANAGEMENT_PORT,
            new SecurityConfig.KeyLookup(1000, Duration.ofSeconds(60), 60, 1000, List.of(), ""));
    return new Gatekeeper(
        cfg,
        null,
        id -> {
          reads.incrementAndGet();
          return storeUp
              ? Future.succeededFuture(
                  Optional.of(
                      new KeyRecord(
                          key.id(),
                          key.name(),
                          key.hash(),
                          key.scopes(),
                          key.devices(),
                          0,
                          Instant.EPOCH,
                          "t",
                          revokedAt)))
              : Future.failedFuture("store unreachable");
        },
        StaticKeys.none(),
        null,
        new Clock() {
          @Override
          public ZoneId getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(ZoneId zone) {
            return this;
          }

          @Override
          public Instant instant() {
            return Instant.ofEpochMilli(now.get());
          }
        });
  }

  private static boolean check(Gatekeeper gate, Principal p) {
    Future<Boolean> f = gate.stillValid(p);
    assertThat(f.isComplete()).isTrue();
    return f.result();
  }

  @Test
  void aRevokedKeysSocketClosesOnceTheStoreHasBeenUnreachableForLongerThanMaxStale() {
    Gatekeeper gate = gate(MAX_STALE);
    Principal p = key.principal(100);
    assertThat(check(gate, p)).isTrue();
    long lastRead = now.get();
    storeUp = false;
    revokedAt = Instant.ofEpochMilli(now.get()); // revoked, but no instance can read that now
    // a check every refresh, as the socket's timer does
    while (now.get() - lastRead + REFRESH.toMillis() <= MAX_STALE.toMillis()) {
      now.addAndGet(REFRESH.toMillis());
      assertThat(check(gate, p))
          .as("%d s into the outage: within max-stale", (now.get() - lastRead) / 1000)
          .isTrue();
    }
    now.addAndGet(REFRESH.toMillis());
    assertThat(check(gate, p))
        .as("%d s into the outage: past max-stale", (now.get() - lastRead) / 1000)
        .isFalse();
  }

  @Test
  void aSocketStaysOpenThroughOutagesShorterThanMaxStaleWithReadsBetween() {
    Gatekeeper gate = gate(MAX_STALE);
    Principal p = key.principal(100);
    assertThat(check(gate, p)).as("the key read as the socket opened").isTrue();
    for (int outage = 0; outage < 3; outage++) {
      storeUp = false;
      for (int i = 0; i < 120; i++) { // 4 minutes
        now.addAndGet(REFRESH.toMillis());
        assertThat(check(gate, p)).as("outage %d, check %d", outage, i).isTrue();
      }
      storeUp = true;
      now.addAndGet(REFRESH.toMillis());
      assertThat(check(gate, p)).isTrue();
    }
    revokedAt = Instant.ofEpochMilli(now.get());
    now.addAndGet(REFRESH.toMillis());
    assertThat(check(gate, p)).as("a revocation the store shows").isFalse();
  }

  @Test
  void healthyChecksReadTheStoreNoMoreThanOncePerCheckWhateverMaxStale() {
    for (Duration maxStale : List.of(MAX_STALE, Duration.ZERO)) {
      Gatekeeper gate = gate(maxStale);
      Principal p = key.principal(100);
      reads.set(0);
      for (int i = 0; i < 100; i++) {
        now.addAndGet(REFRESH.toMillis());
        assertThat(check(gate, p)).isTrue();
      }
      assertThat(reads.get()).as("max-stale %s", maxStale).isLessThanOrEqualTo(100);
    }
  }
}
