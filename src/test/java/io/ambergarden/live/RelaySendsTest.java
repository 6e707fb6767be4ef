package io.ambergarden.live;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RelaySendsTest {
  private static final int RECORD = 64 * 1024;

  private final Counter dropped = new SimpleMeterRegistry().counter("dropped");
  private final List<Promise<Void>> atTheBroker = new ArrayList<>();

  private Future<?> stalledBroker(String record) {
    Promise<Void> answer = Promise.promise();
    atTheBroker.add(answer);
    return answer.future();
  }

  @Test
  void aStalledBrokerHoldsNoMoreThanTheByteBoundAndTheRestIsDroppedAndCounted() {
    RelaySends<String> sends = new RelaySends<>(this::stalledBroker, 1 << 20, 1024, dropped);

    int accepted = 0;
    for (int i = 0; i < 400; i++) {
      accepted += sends.offer("r" + i, RECORD) ? 1 : 0;
    }

    assertThat(accepted).isEqualTo(16);
    assertThat(sends.pendingBytes()).isEqualTo(16L * RECORD);
    assertThat(atTheBroker).hasSize(16);
    assertThat(dropped.count()).isEqualTo(400 - 16);
  }

  @Test
  void theRecordBoundHoldsForSmallRecords() {
    RelaySends<String> sends = new RelaySends<>(this::stalledBroker, 1 << 20, 100, dropped);

    for (int i = 0; i < 1000; i++) {
      sends.offer("r" + i, 10);
    }

    assertThat(sends.pendingRecords()).isEqualTo(100);
    assertThat(dropped.count()).isEqualTo(900);
  }

  @Test
  void answeredAndFailedSendsFreeTheirRoomAndAFailureIsCounted() {
    RelaySends<String> sends = new RelaySends<>(this::stalledBroker, 2L * RECORD, 1024, dropped);
    sends.offer("a", RECORD);
    sends.offer("b", RECORD);
    assertThat(sends.offer("c", RECORD)).isFalse();

    atTheBroker.get(0).complete();
    atTheBroker.get(1).fail("broker gone");

    assertThat(sends.pendingBytes()).isZero();
    assertThat(sends.pendingRecords()).isZero();
    assertThat(dropped.count()).isEqualTo(2); // "c" at the bound, "b" failed
    assertThat(sends.offer("d", RECORD)).isTrue();
  }
}
