package io.ambergarden.config;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The whole validated configuration. Built once at startup by {@link ConfigLoader}; immutable. */
public record AmberConfig(
    Http http,
    Ingest ingest,
    Events events,
    Cassandra cassandra,
    Writer writer,
    Kafka kafka,
    Query query,
    Export export,
    Counters counters,
    Rollups rollups,
    Live live,
    Simulator simulator,
    Fleet fleet,
    HotDevices hot,
    Media media,
    Duration shutdownGrace,
    RawConfig raw,
    SecurityConfig.Access access,
    int replicas,
    Clock clock) {

  static AmberConfig from(RawConfig c) {
    return ConfigReader.read(c);
  }

  public enum IngestMode {
    KAFKA,
    DIRECT
  }

  /** How the writer caps its statements at the driver. */
  public enum WriteLimit {
    FIXED,
    VEGAS
  }

  public enum BucketSize {
    HOUR(Duration.ofHours(1)),
    DAY(Duration.ofDays(1));
    public final Duration length;

    BucketSize(Duration length) {
      this.length = length;
    }
  }

  public record Http(
      String host,
      int port,
      long maxBodyBytes,
      int instances,
      int maxConnections,
      Duration idleTimeout,
      Duration bodyTimeout) {}

  public record Ingest(
      IngestMode mode,
      int maxBatch,
      int maxInFlightRequests,
      int retryAfterSeconds,
      long maxInFlightBytes,
      Duration produceTimeout,
      boolean startWithoutCassandra) {}

  public record Events(
      Duration retention,
      Duration futureSkew,
      int maxPayloadBytes,
      int abnormalMinCode,
      Set<String> abnormalStatuses) {
    public boolean isAbnormal(Integer code, String status) {
      return (code != null && code >= abnormalMinCode)
          || (status != null && abnormalStatuses.contains(status.toLowerCase(Locale.ROOT)));
    }
  }

  public record Cassandra(
      List<InetSocketAddress> contactPoints,
      String localDatacenter,
      String keyspace,
      String replication,
      String username,
      String password,
      boolean applySchema,
      Duration requestTimeout,
      String writeConsistency,
      String readConsistency,
      String counterConsistency,
      Duration speculativeDelay,
      int speculativeMax,
      BucketSize bucket,
      int typeSalts,
      int abnormalSalts,
      Duration abnormalRetention,
      boolean separateReadSession,
      SecurityConfig.CassandraSecurity security) {
    @Override
    public String toString() {
      return "Cassandra[contactPoints="
          + contactPoints
          + ", keyspace="
          + keyspace
          + ", password=******, "
          + security
          + "]";
    }
  }

  public record Writer(
      int instances,
      int maxInFlightEvents,
      int maxConcurrentStatements,
      WriteLimit concurrencyLimit,
      int minConcurrentStatements,
      int batchMaxRows,
      int retryMaxAttempts,
      Duration retryInitialBackoff,
      Duration retryUnsentWindow,
      int bucketCacheSize,
      Duration requestTimeout,
      int groupMaxPartitions,
      int groupMaxBytes) {}

  public record Kafka(
      String bootstrapServers,
      String topic,
      String dlqTopic,
      String groupId,
      boolean createTopics,
      int topicPartitions,
      short topicReplication,
      boolean consumerEnabled,
      int maxInFlight,
      int maxPollRecords,
      int writeBatch,
      Duration writeLinger,
      Duration commitInterval,
      Duration maxPollInterval,
      Duration sessionTimeout,
      int breakerFailureThreshold,
      Duration breakerResetTimeout,
      Duration retryMaxBackoff,
      int dlqGuardWindow,
      int dlqGuardMinSamples,
      double dlqGuardMaxRatio,
      Duration producerLinger,
      Duration producerDeliveryTimeout,
      Duration stallTimeout,
      int fetchMinBytes,
      Duration fetchMaxWait,
      Duration retryTimeout,
      SecurityConfig.KafkaSecurity security) {}

  /**
   * Counters are applied from the count journal by the rollup shard owners, off the acknowledgement
   * path.
   *
   * @param maxPendingCells most distinct counter cells one apply request carries (a journal bucket
   *     with more is applied in several requests)
   * @param maxConcurrentFlushes most counter statements in flight at once
   */
  /**
   * Counters; with {@code reconcile} off they stay approximate (no exact rows, no exactThrough),
   * which saves the reconciliation's writes.
   */
  public record Counters(
      boolean enabled, boolean reconcile, int maxPendingCells, int maxConcurrentFlushes) {}

  public record Rollups(
      boolean enabled,
      Duration grace,
      Duration scanInterval,
      int shards,
      Duration leaseTtl,
      Duration markBucket,
      Duration markSafety,
      int maxConcurrentRecomputes,
      Duration lateWindow) {}

  public record Live(
      boolean enabled,
      String topic,
      int maxConnections,
      int maxBufferedBytes,
      Duration heartbeatInterval,
      int maxReplayEvents,
      int maxFilterValues,
      List<String> allowedOrigins,
      long replayMaxBytes,
      Duration presenceInterval,
      boolean relayWhenAlone) {}

  public record Simulator(boolean enabled, int devices, int eventsPerSecond) {}

  /** Device images: the object store, upload limits, shares and the blob sweeper. */
  public record Media(
      boolean enabled,
      String s3Endpoint,
      String s3Region,
      String s3Bucket,
      String s3AccessKey,
      String s3SecretKey,
      boolean s3PathStyle,
      boolean s3CreateBucket,
      Duration s3Timeout,
      long maxBytes,
      int maxTags,
      int maxInFlightUploads,
      Duration uploadDeadline,
      Duration shareMinTtl,
      Duration shareMaxTtl,
      String publicBaseUrl,
      Duration purgeAfter,
      Duration orphanGrace,
      boolean sweepEnabled,
      Duration sweepInterval,
      Duration sweepLeaseTtl,
      Duration sweepBucket) {
    /**
     * How many request timeouts an upload waits for its metadata write: the month index and the
     * batch are two driver requests in sequence, plus one for the bus hop and queueing.
     */
    public static final int METADATA_WAIT_TIMEOUTS = 3;

    /** How long an upload waits for its metadata write before answering 503. */
    public static Duration metadataWait(Duration cassandraRequestTimeout) {
      return cassandraRequestTimeout.multipliedBy(METADATA_WAIT_TIMEOUTS);
    }

    @Override
    public String toString() {
      return "Media[endpoint=" + s3Endpoint + ", bucket=" + s3Bucket + ", secretKey=******]";
    }
  }

  public record Query(
      int instances,
      int defaultLimit,
      int maxLimit,
      int maxBucketsPerPage,
      String cursorKey,
      int statsMaxDays,
      int seriesMaxPoints,
      int seriesMaxScanned) {}

  /**
   * Exports of a device's history (GET /api/v1/devices/{id}/events/export): exports running at once
   * on this instance, events per page read, how long a client may stop reading before it is
   * dropped, the response bytes queued before the reads pause, and the most metrics a CSV may name.
   */
  public record Export(
      int maxConcurrent,
      int pageSize,
      Duration stallTimeout,
      int writeQueueBytes,
      int maxMetrics) {}

  /** The fleet index (every device's current state, by type, status and abnormal). */
  public record Fleet(int shards, int cacheSize, Duration refresh) {}

  /**
   * How often each Cassandra node's clock is compared with this instance's (zero: never), and the
   * skew above which it is reported.
   */
  public record Clock(Duration checkInterval, Duration maxSkew) {
    public boolean enabled() {
      return !checkInterval.isZero();
    }
  }

  /** Detail partitions of hot devices: split into salted slices above a row target. */
  public record HotDevices(boolean enabled, int partitionRows, int maxSalts) {}
}
