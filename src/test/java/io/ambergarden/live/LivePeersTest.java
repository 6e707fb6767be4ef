package io.ambergarden.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LivePeersTest {
  private static final long START = 1_000_000;
  private static final long TIMEOUT = 8_000;

  @Test
  void untilOneTimeoutAfterStartPeersAreAssumedThenAnInstanceAloneSharesNothing() {
    LivePeers peers = new LivePeers(START, TIMEOUT, 16);

    assertThat(peers.shared(START)).isTrue();
    assertThat(peers.shared(START + TIMEOUT - 1)).isTrue();
    assertThat(peers.shared(START + TIMEOUT)).isFalse();
    assertThat(peers.count(START + TIMEOUT)).isZero();
  }

  @Test
  void aPeerSeenKeepsTheEventsSharedForOneTimeoutAfterItsLastRecord() {
    LivePeers peers = new LivePeers(START, TIMEOUT, 16);
    long late = START + 3 * TIMEOUT;
    assertThat(peers.shared(late)).isFalse();

    peers.seen("b", late);
    assertThat(peers.shared(late)).isTrue();
    peers.seen("b", late + TIMEOUT - 1); // its next announcement renews it
    assertThat(peers.shared(late + 2 * TIMEOUT - 2)).isTrue();
    assertThat(peers.count(late + 2 * TIMEOUT - 2)).isEqualTo(1);

    assertThat(peers.shared(late + 2 * TIMEOUT - 1)).isFalse();
    assertThat(peers.count(late + 2 * TIMEOUT - 1)).isZero();
  }

  @Test
  void peersAreCountedOnceEachAndTheSilentOnesLeaveFirst() {
    LivePeers peers = new LivePeers(START, TIMEOUT, 16);
    long t = START + TIMEOUT;
    peers.seen("b", t);
    peers.seen("c", t + 1_000);
    peers.seen("b", t + 2_000);
    peers.seen("b", t + 3_000);

    assertThat(peers.count(t + 3_000)).isEqualTo(2);
    assertThat(peers.count(t + 1_000 + TIMEOUT)).as("c went quiet").isEqualTo(1);
    assertThat(peers.count(t + 3_000 + TIMEOUT)).isZero();
  }

  @Test
  void atTheBoundTheLongestUnseenPeerIsForgotten() {
    LivePeers peers = new LivePeers(START, TIMEOUT, 3);
    long t = START + TIMEOUT;
    for (int i = 0; i < 10; i++) {
      peers.seen("p" + i, t + i);
    }
    assertThat(peers.count(t + 10)).isEqualTo(3);
    // the survivors are the three seen last: they leave one by one as each times out
    assertThat(peers.count(t + 7 + TIMEOUT)).isEqualTo(2);
    assertThat(peers.count(t + 9 + TIMEOUT)).isZero();
  }

  @Test
  void aTimeoutOrABoundBelowOneIsRefused() {
    assertThatThrownBy(() -> new LivePeers(START, 0, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LivePeers(START, TIMEOUT, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
