package io.ambergarden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class TsKvWriteLoopTest {
  @Test
  void partitionIsTheStartOfTheUtcMonth() {
    long midMarch = Instant.parse("2025-03-17T13:45:10.123Z").toEpochMilli();
    assertThat(TsKvWriteLoop.monthPartition(midMarch))
        .isEqualTo(Instant.parse("2025-03-01T00:00:00Z").toEpochMilli());
    long firstMilli = Instant.parse("2025-04-01T00:00:00Z").toEpochMilli();
    assertThat(TsKvWriteLoop.monthPartition(firstMilli)).isEqualTo(firstMilli);
    assertThat(TsKvWriteLoop.monthPartition(firstMilli - 1))
        .isEqualTo(Instant.parse("2025-03-01T00:00:00Z").toEpochMilli());
  }

  @Test
  void entityIdIsAStableVersionOneUuidPerDevice() {
    assertThat(TsKvWriteLoop.entityId("dev-1").version()).isEqualTo(1);
    assertThat(TsKvWriteLoop.entityId("dev-1").variant()).isEqualTo(2);
    assertThat(TsKvWriteLoop.entityId("dev-1"))
        .isEqualTo(TsKvWriteLoop.entityId("dev-1"))
        .isNotEqualTo(TsKvWriteLoop.entityId("dev-2"));
  }

  @Test
  void rowsAreFiveKeysPerEventPlusFivePartitionRowsPerDeviceMonth() {
    long march = Instant.parse("2025-03-17T00:00:00Z").toEpochMilli();
    long april = Instant.parse("2025-04-02T00:00:00Z").toEpochMilli();
    List<BenchEvents.Spec> events =
        List.of(spec("a", march), spec("a", march + 1), spec("a", april), spec("b", march));

    // 4 events x 5 keys, and (a, March), (a, April), (b, March) x 5 keys
    assertThat(TsKvWriteLoop.rowsOf(events)).isEqualTo(20 + 15);
  }

  private static BenchEvents.Spec spec(String device, long ts) {
    return new BenchEvents.Spec(device, "meter", ts, "e" + ts, "normal", 200, 20, 0.1, 5);
  }
}
