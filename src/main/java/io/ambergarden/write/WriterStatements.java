package io.ambergarden.write;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import java.util.List;

/** The writer's statements ({@link CqlStatements}), prepared once at start. */
record WriterStatements(
    PreparedStatement detail,
    PreparedStatement bucket,
    PreparedStatement latest,
    PreparedStatement byType,
    PreparedStatement abnormal,
    PreparedStatement mark,
    PreparedStatement fleet,
    PreparedStatement fleetDelete,
    PreparedStatement activity,
    PreparedStatement typeBucket,
    PreparedStatement slices,
    PreparedStatement createSlice,
    PreparedStatement countJournal,
    PreparedStatement deviceReopened,
    PreparedStatement shardReopened) {

  static Future<WriterStatements> prepare(CassandraClient client, String keyspace) {
    CqlStatements cql = new CqlStatements(keyspace);
    Future<PreparedStatement> detail = client.prepare(cql.insertDetail());
    Future<PreparedStatement> bucket = client.prepare(cql.insertBucket());
    Future<PreparedStatement> latest = client.prepare(cql.upsertLatest());
    Future<PreparedStatement> byType = client.prepare(cql.insertByType());
    Future<PreparedStatement> abnormal = client.prepare(cql.upsertAbnormal());
    Future<PreparedStatement> mark = client.prepare(cql.insertRollupMark());
    Future<PreparedStatement> fleet = client.prepare(cql.insertFleet());
    Future<PreparedStatement> fleetDelete = client.prepare(cql.deleteFleet());
    Future<PreparedStatement> activity = client.prepare(cql.insertActivity());
    Future<PreparedStatement> typeBucket = client.prepare(cql.insertTypeBucket());
    Future<PreparedStatement> slices = client.prepare(cql.selectSlices());
    Future<PreparedStatement> createSlice = client.prepare(cql.createSlice());
    Future<PreparedStatement> countJournal = client.prepare(cql.insertCountJournal());
    Future<PreparedStatement> deviceReopened = client.prepare(cql.insertDeviceReopened());
    Future<PreparedStatement> shardReopened = client.prepare(cql.insertShardReopened());
    return Future.all(
            List.of(
                detail,
                bucket,
                latest,
                byType,
                abnormal,
                mark,
                fleet,
                fleetDelete,
                activity,
                typeBucket,
                slices,
                createSlice,
                countJournal,
                deviceReopened,
                shardReopened))
        .map(
            all ->
                new WriterStatements(
                    detail.result(),
                    bucket.result(),
                    latest.result(),
                    byType.result(),
                    abnormal.result(),
                    mark.result(),
                    fleet.result(),
                    fleetDelete.result(),
                    activity.result(),
                    typeBucket.result(),
                    slices.result(),
                    createSlice.result(),
                    countJournal.result(),
                    deviceReopened.result(),
                    shardReopened.result()));
  }
}
