package io.ambergarden.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class KeyCacheTest {
  private final AtomicLong now = new AtomicLong(1_000_000);
  private final Map<String, KeyRecord> store = new HashMap<>();
  private final List<String> reads = new ArrayList<>();
  private final List<Promise<Optional<KeyRecord>>> pending = new ArrayList<>();
  private boolean down;
  private boolean manual;

  private Future<Optional<KeyRecord>> load(String id) {
    reads.add(id);
    if (manual) {
      Promise<Optional<KeyRecord>> p = Promise.promise();
      pending.add(p);
      return p.future();
    }
    return down
        ? Future.failedFuture("Cassandra down")
        : Future.succeededFuture(Optional.ofNullable(store.get(id)));
  }

  private KeyCache cache(long maxStale) {
    return new KeyCache(
        this::load, new KeyCache.Limits(3, 2000, maxStale, 3, 60_000, 1000), now::get);
  }

  private static KeyRecord key(String id, Instant revoked) {
    return new KeyRecord(
        id,
        "k",
        new byte[32],
        Set.of(Scope.EVENTS_READ),
        List.of(),
        0,
        Instant.EPOCH,
        "t",
        revoked);
  }

  private static Optional<KeyRecord> value(Future<Optional<KeyRecord>> f) {
    assertThat(f.succeeded()).as("lookup succeeded: %s", f.cause()).isTrue();
    return f.result();
  }

  @Test
  void aFreshEntryIsServedWithoutReadingTheStore() {
    store.put("a", key("a", null));
    KeyCache c = cache(60_000);
    assertThat(value(c.get("a"))).isPresent();
    now.addAndGet(999);
    assertThat(value(c.get("a"))).isPresent();
    assertThat(reads).containsExactly("a");
  }

  @Test
  void aRevocationIsSeenWithinTheRefresh() {
    store.put("a", key("a", null));
    KeyCache c = cache(60_000);
    value(c.get("a"));
    store.put("a", key("a", Instant.now()));
    now.addAndGet(1500);
    // refreshed ahead in the background: this answer may still be the old one
    c.get("a");
    now.addAndGet(1);
    assertThat(value(c.get("a")).orElseThrow().revoked()).isTrue();
    now.addAndGet(5000);
    assertThat(value(c.get("a")).orElseThrow().revoked()).isTrue();
  }

  @Test
  void anEntryOlderThanTheRefreshWaitsForAFreshRead() {
    store.put("a", key("a", null));
    KeyCache c = cache(60_000);
    value(c.get("a"));
    store.put("a", key("a", Instant.now()));
    now.addAndGet(2000);
    assertThat(value(c.get("a")).orElseThrow().revoked()).isTrue();
  }

  @Test
  void unknownIdsAreRememberedToo() {
    KeyCache c = cache(60_000);
    assertThat(value(c.get("nope"))).isEmpty();
    assertThat(value(c.get("nope"))).isEmpty();
    assertThat(reads).containsExactly("nope");
  }

  @Test
  void whileTheStoreIsDownAKnownKeyKeepsWorkingUntilMaxStale() {
    store.put("a", key("a", null));
    KeyCache c = cache(10_000);
    value(c.get("a"));
    down = true;
    now.addAndGet(5000);
    assertThat(value(c.get("a"))).isPresent();
    now.addAndGet(5000);
    assertThat(c.get("a").failed()).isTrue();
    assertThat(c.get("never-seen").failed()).isTrue();
  }

  @Test
  void withoutMaxStaleAnUnreadableKeyIsRefused() {
    store.put("a", key("a", null));
    KeyCache c = cache(0);
    value(c.get("a"));
    down = true;
    now.addAndGet(2000);
    assertThat(c.get("a").failed()).isTrue();
  }

  @Test
  void concurrentMissesShareOneRead() {
    manual = true;
    KeyCache c = cache(60_000);
    Future<Optional<KeyRecord>> first = c.get("a");
    Future<Optional<KeyRecord>> second = c.get("a");
    assertThat(reads).hasSize(1);
    pending.get(0).complete(Optional.of(key("a", null)));
    assertThat(value(first)).isPresent();
    assertThat(value(second)).isPresent();
  }

  @Test
  void bothSidesOfTheCacheAreBounded() {
    KeyCache c = cache(60_000);
    for (String id : List.of("a", "b", "c", "d", "e")) {
      store.put(id, key(id, null));
      value(c.get(id));
      value(c.get("no-" + id));
    }
    assertThat(c.size()).isEqualTo(3);
    assertThat(c.unknownSize()).isEqualTo(3);
  }

  @Test
  void aKnownKeyKeepsWorkingThroughAnOutageLongerThanMaxStale() {
    store.put("a", key("a", null));
    KeyCache c = cache(10_000);
    value(c.get("a"));
    down = true;
    for (int minute = 1; minute <= 120; minute++) {
      now.addAndGet(60_000);
      assertThat(value(c.getThroughOutage("a"))).as("minute %d", minute).isPresent();
    }
    // a long-lived session still gives up after max-stale
    assertThat(c.get("a").failed()).isTrue();
    // one read per retry pause at most, not one per request
    assertThat(reads).hasSizeLessThanOrEqualTo(1 + 120 * 2);
  }

  @Test
  void duringAnOutageAKnownKeyIsAnsweredWithoutWaitingForTheStore() {
    store.put("a", key("a", null));
    KeyCache c = cache(60_000);
    value(c.get("a"));
    manual = true;
    now.addAndGet(2000);
    Future<Optional<KeyRecord>> first = c.getThroughOutage("a");
    pending.get(0).fail("timed out");
    assertThat(value(first)).isPresent();
    now.addAndGet(5000);
    // the store failed last time: answered at once, read again behind the answer
    Future<Optional<KeyRecord>> second = c.getThroughOutage("a");
    assertThat(second.isComplete()).isTrue();
    assertThat(value(second)).isPresent();
    assertThat(pending).hasSize(2);
  }

  @Test
  void aKeyNeverSeenFailsClosedWhileTheStoreIsDownWithoutAReadPerRequest() {
    KeyCache c = cache(60_000);
    down = true;
    assertThat(c.getThroughOutage("new").failed()).isTrue();
    for (int i = 0; i < 100; i++) {
      assertThat(c.getThroughOutage("new-" + i).failed()).isTrue();
    }
    assertThat(reads).containsExactly("new");
    now.addAndGet(1000);
    assertThat(c.getThroughOutage("new").failed()).isTrue();
    assertThat(reads).hasSize(2);
  }

  @Test
  void aRevocationIsSeenOnceTheStoreAnswersAgain() {
    store.put("a", key("a", null));
    KeyCache c = cache(60_000);
    value(c.get("a"));
    down = true;
    now.addAndGet(600_000);
    assertThat(value(c.getThroughOutage("a"))).isPresent();
    store.put("a", key("a", Instant.now()));
    down = false;
    now.addAndGet(1000);
    c.getThroughOutage("a"); // the first request after the pause reads again
    assertThat(value(c.getThroughOutage("a")).orElseThrow().revoked()).isTrue();
  }

  @Test
  void invalidateForgetsAtOnce() {
    store.put("a", key("a", null));
    KeyCache c = cache(60_000);
    value(c.get("a"));
    store.put("a", key("a", Instant.now()));
    c.invalidate("a");
    assertThat(value(c.get("a")).orElseThrow().revoked()).isTrue();
  }
}
