package io.ambergarden.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * 100k random well-formed key ids against the key cache at its default sizes, with a stub store
 * that counts its reads.
 */
class KeyFloodTest {
  private static final int REAL = 1000;
  private static final int RANDOM = 100_000;
  private static final long NEGATIVE_TTL = 60_000;

  private final AtomicLong now = new AtomicLong(1_000_000);
  private final Map<String, KeyRecord> store = new HashMap<>();
  private final Map<String, Integer> readsById = new HashMap<>();
  private long reads;

  private Future<Optional<KeyRecord>> countingFind(String id) {
    reads++;
    readsById.merge(id, 1, Integer::sum);
    return Future.succeededFuture(Optional.ofNullable(store.get(id)));
  }

  private KeyCache cache() {
    return new KeyCache(
        this::countingFind,
        new KeyCache.Limits(100_000, 2000, 300_000, 100_000, NEGATIVE_TTL, 1000),
        now::get);
  }

  @Test
  void randomIdsEvictNoRealKeyAndCostOneReadPerIdPerNegativeTtl() {
    Random random = new Random(26);
    List<String> real = new ArrayList<>();
    for (int i = 0; i < REAL; i++) {
      String id = id(random);
      real.add(id);
      store.put(
          id,
          new KeyRecord(
              id,
              "real",
              new byte[32],
              Set.of(Scope.EVENTS_WRITE),
              List.of(),
              0,
              Instant.EPOCH,
              "t",
              null));
    }
    List<String> flood = new ArrayList<>();
    for (int i = 0; i < RANDOM; i++) {
      flood.add(id(random));
    }
    KeyCache c = cache();
    real.forEach(id -> assertThat(c.get(id).result()).isPresent());
    long realReads = reads;

    // the flood, each id three times, within one negative TTL
    assertThat(found(c, flood, 3)).isZero();
    assertThat(reads - realReads).isEqualTo(RANDOM);
    assertThat(c.size()).isEqualTo(REAL);
    // every real key is still remembered: answered with no store read
    long before = reads;
    real.forEach(id -> assertThat(c.get(id).result()).isPresent());
    assertThat(reads).isEqualTo(before);

    // after the TTL each random id may cost one more read, not more
    now.addAndGet(NEGATIVE_TTL);
    assertThat(found(c, flood, 2)).isZero();
    assertThat(flood.stream().mapToInt(readsById::get).max().orElseThrow()).isEqualTo(2);
    System.out.printf(
        "key flood: %d random ids x 5 -> %d store reads; %d real keys all still cached%n",
        RANDOM, reads - realReads, c.size());
  }

  /** How many lookups of {@code ids}, each asked {@code times}, found a key. */
  private static int found(KeyCache c, List<String> ids, int times) {
    int found = 0;
    for (int round = 0; round < times; round++) {
      for (String id : ids) {
        found += c.get(id).result().isPresent() ? 1 : 0;
      }
    }
    return found;
  }

  private static String id(Random random) {
    byte[] b = new byte[8];
    random.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }
}
