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
    PreparedStatement mark) {

  static Future<WriterStatements> prepare(CassandraClient client, String keyspace) {
    CqlStatements cql = new CqlStatements(keyspace);
    Future<PreparedStatement> detail = client.prepare(cql.insertDetail());
    Future<PreparedStatement> bucket = client.prepare(cql.insertBucket());
    Future<PreparedStatement> latest = client.prepare(cql.upsertLatest());
    Future<PreparedStatement> byType = client.prepare(cql.insertByType());
    Future<PreparedStatement> abnormal = client.prepare(cql.upsertAbnormal());
    Future<PreparedStatement> mark = client.prepare(cql.insertRollupMark());
    return Future.all(List.of(detail, bucket, latest, byType, abnormal, mark))
        .map(
            all ->
                new WriterStatements(
                    detail.result(),
                    bucket.result(),
                    latest.result(),
                    byType.result(),
                    abnormal.result(),
                    mark.result()));
  }
}
