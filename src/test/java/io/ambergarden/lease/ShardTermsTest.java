package io.ambergarden.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ShardTermsTest {
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final long T0 = 1_700_000_000_000L;

  @Test
  void aLongCatchUpScanRenewsEveryHeldLeaseBeforeItRunsOut() {
    ShardTerms terms = new ShardTerms(TTL);
    for (int shard = 0; shard < 4; shard++) {
      terms.acquired(shard, 0, terms.acquireUntil(T0, 0));
    }
    int renewals = 0;
    // a scan of 10 minutes, twenty times the TTL, with the renewal tick every TTL / 6
    for (long now = T0; now < T0 + Duration.ofMinutes(10).toMillis(); now += 5_000) {
      for (int shard = 0; shard < 4; shard++) {
        assertThat(terms.holds(shard, now)).as("shard %d at +%d ms", shard, now - T0).isTrue();
        assertThat(terms.stamp(shard, now)).isPresent();
      }
      for (ShardTerms.Term t : terms.dueForRenewal(now)) {
        terms.renewed(t.shard(), t.leaseUntil(), terms.renewUntil(now, t));
        renewals++;
      }
    }
    // each lease renewed once per third of the TTL or so, not at every tick
    assertThat(renewals).isBetween(4 * 50, 4 * 61);
  }

  @Test
  void aRenewalComesDueAfterAThirdOfTheTtlAndNeverForARunOutOrDroppedLease() {
    ShardTerms terms = new ShardTerms(TTL);
    terms.acquired(1, 0, terms.acquireUntil(T0, 0));
    terms.acquired(2, 0, terms.acquireUntil(T0, 0));

    assertThat(terms.dueForRenewal(T0 + 9_000)).isEmpty();
    assertThat(terms.dueForRenewal(T0 + 10_000)).extracting(ShardTerms.Term::shard).contains(1, 2);

    terms.dropped(2); // its renewal found another owner
    assertThat(terms.dueForRenewal(T0 + 10_000)).extracting(ShardTerms.Term::shard).containsOnly(1);
    assertThat(terms.holds(2, T0 + 10_000)).isFalse();
    assertThat(terms.stamp(2, T0 + 10_000)).isEmpty();

    // not renewed (e.g. the store was unreachable): it runs out, and then nothing is stamped
    assertThat(terms.holds(1, T0 + 29_999)).isTrue();
    assertThat(terms.dueForRenewal(T0 + 30_000)).isEmpty();
    assertThat(terms.holds(1, T0 + 30_000)).isFalse();
    assertThat(terms.stamp(1, T0 + 30_000)).isEmpty();
  }

  @Test
  void aRenewalNeverShortensTheLease() {
    ShardTerms terms = new ShardTerms(TTL);
    terms.acquired(0, 0, T0 + 30_000);
    // this instance's clock stepped back 20 s
    ShardTerms.Term t = terms.term(0);
    assertThat(terms.renewUntil(T0 - 20_000, t)).isEqualTo(T0 + 30_000);
    assertThat(terms.renewUntil(T0 + 20_000, t)).isEqualTo(T0 + 50_000);
  }

  @Test
  void aStaleOwnersStampsAllLieBelowTheNextOwnersWhateverTheClockSkew() {
    for (long skew : List.of(-25_000L, -1_000L, 0L, 1_000L, 25_000L, 120_000L)) {
      ShardTerms a = new ShardTerms(TTL);
      ShardTerms b = new ShardTerms(TTL);
      long untilA = a.acquireUntil(T0, 0);
      a.acquired(7, 0, untilA);
      List<Long> stampsA = new ArrayList<>();
      for (long now = T0; now < T0 + 40_000; now += 250) {
        OptionalLong s = a.stamp(7, now);
        s.ifPresent(stampsA::add);
      }
      assertThat(stampsA).as("A stamps until its own clock passes lease_until").isNotEmpty();
      assertThat(a.stamp(7, untilA)).isEmpty();

      // B takes the lease once its clock passes untilA; at its first recompute its clock reads
      // anything from 25 s ahead to 2 min behind that (an NTP step): the floor keeps it above A
      long bNow = untilA + 1;
      b.acquired(7, untilA, b.acquireUntil(bNow, untilA));
      long firstB = b.stamp(7, bNow - skew).orElseThrow();
      assertThat(firstB).as("skew %d ms", skew).isGreaterThan(stampsA.get(stampsA.size() - 1));
    }
  }

  @Test
  void aLeaseGivenBackEarlyFencesTheNextOwnerAboveTheReleasedWindow() {
    ShardTerms a = new ShardTerms(TTL);
    ShardTerms b = new ShardTerms(TTL);
    long untilA = a.acquireUntil(T0, 0);
    a.acquired(3, 0, untilA);
    long lastA = a.stamp(3, T0 + 1_000).orElseThrow();
    // A gives the lease back at T0 + 1 s, keeping lease_until; B, whose clock is 10 s behind,
    // takes it at once
    long bNow = T0 + 1_000 - 10_000;
    long untilB = b.acquireUntil(bNow, untilA);
    assertThat(untilB).isEqualTo(untilA + TTL.toMillis());
    b.acquired(3, untilA, untilB);
    assertThat(b.stamp(3, bNow).orElseThrow())
        .isGreaterThanOrEqualTo(untilA * 1000)
        .isGreaterThan(lastA);
  }

  @Test
  void stampsOfOneOwnerGrowStrictlyWithinItsWindow() {
    ShardTerms terms = new ShardTerms(TTL);
    terms.acquired(0, 0, T0 + 1);
    long first = terms.stamp(0, T0).orElseThrow();
    long second = terms.stamp(0, T0).orElseThrow();
    assertThat(second).isGreaterThan(first);
    assertThat(second).isLessThan((T0 + 1) * 1000);
  }
}
