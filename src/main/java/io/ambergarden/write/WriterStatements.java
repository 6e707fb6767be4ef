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
    List<String> text =
        List.of(
            cql.insertDetail(),
            cql.insertBucket(),
            cql.upsertLatest(),
            cql.insertByType(),
            cql.upsertAbnormal(),
            cql.insertRollupMark(),
            cql.insertFleet(),
            cql.deleteFleet(),
            cql.insertActivity(),
            cql.insertTypeBucket(),
            cql.selectSlices(),
            cql.createSlice(),
            cql.insertCountJournal(),
            cql.insertDeviceReopened(),
            cql.insertShardReopened());
    List<Future<PreparedStatement>> prepared = text.stream().map(client::prepare).toList();
    return Future.all(prepared)
        .map(
            all -> {
              PreparedStatement[] p =
                  prepared.stream().map(Future::result).toArray(PreparedStatement[]::new);
              return new WriterStatements(
                  p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12],
                  p[13], p[14]);
            });
  }
}
