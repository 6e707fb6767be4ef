package io.ambergarden.bench;

import java.util.List;

/**
 * The latencies of one load level, ms: the read probe's page and latest-state p50 / p99, the live
 * probe's ingest-to-live p50 / p99, and the p50 / p99 of the probe's request that does no storage
 * work (its floor: no read can be faster on this box at this load). Shared by the load curve and
 * the steady levels.
 */
record LevelLatencies(
    double pageP50,
    double pageP99,
    double latestP50,
    double latestP99,
    double liveP50,
    double liveP99,
    double noStorageP50,
    double noStorageP99) {

  static LevelLatencies of(List<ReadLatencyProbe.Summary> reads, LiveLatencyProbe.Summary live) {
    ReadLatencyProbe.Summary page = ReadLatencyProbe.Summary.of(reads, "/events");
    ReadLatencyProbe.Summary latest = ReadLatencyProbe.Summary.of(reads, "/latest");
    ReadLatencyProbe.Summary noStorage =
        ReadLatencyProbe.Summary.of(reads, ReadLatencyProbe.NO_STORAGE_PATH);
    return new LevelLatencies(
        page.p50Millis(),
        page.p99Millis(),
        latest.p50Millis(),
        latest.p99Millis(),
        live.p50Millis(),
        live.p99Millis(),
        noStorage.p50Millis(),
        noStorage.p99Millis());
  }
}
