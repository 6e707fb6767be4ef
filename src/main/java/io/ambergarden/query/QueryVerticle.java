package io.ambergarden.query;

import io.ambergarden.bus.DeviceEventsQuery;
import io.ambergarden.bus.DeviceLatestQuery;
import io.ambergarden.bus.ExportPageQuery;
import io.ambergarden.bus.FailureCode;
import io.ambergarden.bus.FleetQuery;
import io.ambergarden.bus.SeriesQuery;
import io.ambergarden.bus.TypeEventsQuery;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.Event;
import io.ambergarden.metrics.ReadMeters;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;

/**
 * Serves event and fleet reads from the query-first tables: a device's history ({@link
 * DeviceHistory}; oldest first for exports), a device type's recent events ({@link TypeHistory}), a
 * device's latest state, the fleet list ({@link FleetReader}), and a device's metric as a series
 * ({@link SeriesReader}).
 */
public final class QueryVerticle extends VerticleBase {
  private final AmberConfig config;
  private final TimeBuckets buckets;
  private CassandraReads reads;
  private QueryStatements cql;

  /** The read meters (the service's, or unscraped ones when deployed alone). */
  private final ReadMeters meters;

  public QueryVerticle(AmberConfig config) {
    this(config, ReadMeters.unscraped());
  }

  public QueryVerticle(AmberConfig config, ReadMeters meters) {
    this.meters = meters;
    this.config = config;
    this.buckets = new TimeBuckets(config.cassandra().bucket().length);
  }

  @Override
  public Future<?> start() {
    CassandraClient client = CassandraClients.reads(vertx, config.cassandra());
    reads = new CassandraReads(client, meters);
    Future<SeriesStatements> seriesCql =
        SeriesStatements.prepare(client, config.cassandra().keyspace());
    return QueryStatements.prepare(client, config.cassandra().keyspace())
        .compose(prepared -> seriesCql.map(s -> prepared))
        .compose(
            prepared -> {
              cql = prepared;
              SeriesReader series = new SeriesReader(reads, seriesCql.result(), config);
              DeviceHistory devices =
                  new DeviceHistory(reads, cql, buckets, config.query().maxBucketsPerPage());
              TypeHistory types = new TypeHistory(reads, cql, buckets, config);
              FleetReader fleet = new FleetReader(reads, cql, config);
              return Future.all(
                  QueryConsumers.serve(vertx, meters, DeviceEventsQuery.ENDPOINT, devices::page),
                  QueryConsumers.serve(
                      vertx, meters, ExportPageQuery.ENDPOINT, devices::oldestFirst),
                  QueryConsumers.serve(
                      vertx, meters, DeviceLatestQuery.ENDPOINT, this::deviceLatest),
                  QueryConsumers.serve(vertx, meters, TypeEventsQuery.ENDPOINT, types::page),
                  QueryConsumers.serve(vertx, meters, FleetQuery.ENDPOINT, fleet::page),
                  QueryConsumers.serve(vertx, meters, SeriesQuery.ENDPOINT, series::read));
            });
  }

  private Future<Event> deviceLatest(DeviceLatestQuery.Request q) {
    String deviceId = q.deviceId();
    return reads
        .read(cql.latestOfDevice().bind(deviceId))
        .compose(
            rows ->
                rows.isEmpty()
                    ? Future.failedFuture(
                        FailureCode.NOT_FOUND.exception("device " + deviceId + " has no event"))
                    : Future.succeededFuture(StoredEvents.ofDevice(deviceId, rows.get(0))));
  }
}
