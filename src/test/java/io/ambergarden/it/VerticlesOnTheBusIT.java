package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.CountFacts;
import io.ambergarden.bus.CountRequest;
import io.ambergarden.bus.DeviceEventsQuery;
import io.ambergarden.bus.DeviceLatestQuery;
import io.ambergarden.bus.DurableEvents;
import io.ambergarden.bus.EventPage;
import io.ambergarden.bus.FailureCode;
import io.ambergarden.bus.LocalCodec;
import io.ambergarden.bus.PagePosition;
import io.ambergarden.bus.PersistRequest;
import io.ambergarden.bus.PersistResult;
import io.ambergarden.cassandra.CassandraClients;
import io.ambergarden.cassandra.ReplicaLocator;
import io.ambergarden.cassandra.RowKeys;
import io.ambergarden.cassandra.SchemaMigrator;
import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import io.ambergarden.counter.CounterVerticle;
import io.ambergarden.event.Event;
import io.ambergarden.localrt.RealServers;
import io.ambergarden.metrics.AmberMeters;
import io.ambergarden.query.QueryVerticle;
import io.ambergarden.query.StatsVerticle;
import io.ambergarden.write.WriterVerticle;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.cassandra.CassandraClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The writer, counter and query verticles on their own, against the real node: typed requests on
 * the event bus, with no HTTP or Kafka in between. The writer runs the adaptive (vegas) statement
 * limit and the query verticles their own driver session, the non-default choices the other tests
 * leave out.
 */
@ExtendWith({RealServers.class, VertxExtension.class})
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class VerticlesOnTheBusIT {
  private static final DeliveryOptions TIMEOUT = new DeliveryOptions().setSendTimeout(20_000);
  private static AmberConfig config;
  private static ReplicaLocator replicas;

  @BeforeAll
  // the first IT of a run applies the whole schema to a new keyspace: a minute on a busy host
  @io.vertx.junit5.Timeout(value = 3, timeUnit = TimeUnit.MINUTES)
  static void deploy(Vertx vertx, VertxTestContext ctx) {
    config =
        ConfigLoader.load(
            Map.of(),
            new Properties(),
            Map.of(
                "cassandra.contact-points", RealServers.cassandraContactPoint(),
                "cassandra.keyspace", TestService.KEYSPACE,
                "writer.max-in-flight-events", "50",
                "kafka.consumer.max-in-flight", "50",
                "kafka.consumer.write-batch", "50",
                "rollup.enabled", "true",
                "writer.concurrency-limit", "vegas",
                "cassandra.separate-read-session", "true"));
    LocalCodec.registerAll(vertx);
    CassandraClient client = CassandraClients.shared(vertx, config.cassandra());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CassandraClient applier = CassandraClients.schemaApplier(vertx, config.cassandra());
    new SchemaMigrator(vertx, applier, config)
        .migrate()
        .eventually(applier::close)
        .compose(v -> CassandraClients.connectReads(vertx, config.cassandra()))
        .compose(reads -> ReplicaLocator.start(vertx, client, config.cassandra().keyspace()))
        .compose(
            locator -> {
              replicas = locator;
              return Future.all(
                  List.of(
                      vertx.deployVerticle(new CounterVerticle(config, registry, locator)),
                      vertx.deployVerticle(
                          new WriterVerticle(config, new AmberMeters(registry, "it"), locator)),
                      vertx.deployVerticle(new QueryVerticle(config)),
                      vertx.deployVerticle(new StatsVerticle(config))));
            })
        .onComplete(ctx.succeedingThenComplete());
  }

  @AfterAll
  static void closeLocator() {
    if (replicas != null) {
      replicas.close();
    }
  }

  private static List<Event> events(String device, int n, long firstTs) {
    List<Event> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(
          new Event(
              device,
              firstTs + i * 1000L,
              "e" + i,
              "meter",
              "normal",
              200,
              Map.of("temperature", 20.0 + i),
              Map.of(),
              null));
    }
    return out;
  }

  private static String device() {
    return "bus-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void writerRepliesOnlyOnceTheEventsAreReadableAndPublishesThemAsDurable(
      Vertx vertx, VertxTestContext ctx) {
    String device = device();
    List<Event> written = events(device, 5, System.currentTimeMillis() - 60_000);
    List<DurableEvents> published = new ArrayList<>();
    vertx
        .eventBus()
        .<DurableEvents>consumer(
            Addresses.EVENTS_DURABLE,
            m -> {
              if (m.body().events().get(0).deviceId().equals(device)) {
                published.add(m.body());
              }
            })
        .completion()
        .compose(
            v ->
                vertx
                    .eventBus()
                    .<PersistResult>request(
                        Addresses.WRITER_PERSIST.address(),
                        new PersistRequest(written, PersistRequest.Source.HTTP),
                        TIMEOUT))
        .compose(
            reply -> {
              ctx.verify(
                  () -> {
                    assertThat(reply.body().written()).isEqualTo(5);
                    assertThat(published)
                        .singleElement()
                        .satisfies(d -> assertThat(d.events()).isEqualTo(written));
                  });
              return vertx
                  .eventBus()
                  .<EventPage>request(
                      DeviceEventsQuery.ENDPOINT.address(),
                      new DeviceEventsQuery.Request(device, 0, Long.MAX_VALUE, 10, null),
                      TIMEOUT);
            })
        .onComplete(
            ctx.succeeding(
                page ->
                    ctx.verify(
                        () -> {
                          assertThat(page.body().items())
                              .extracting(Event::eventId)
                              .containsExactly("e4", "e3", "e2", "e1", "e0");
                          assertThat(page.body().items().get(0)).isEqualTo(written.get(4));
                          assertThat(page.body().next()).isNull();
                          ctx.completeNow();
                        })));
  }

  @Test
  void writerRefusesARequestBeyondItsInFlightLimitAsOverloaded(Vertx vertx, VertxTestContext ctx) {
    List<Event> tooMany = events(device(), 51, System.currentTimeMillis() - 120_000);
    vertx
        .eventBus()
        .request(
            Addresses.WRITER_PERSIST.address(),
            new PersistRequest(tooMany, PersistRequest.Source.KAFKA),
            TIMEOUT)
        .onComplete(
            ctx.failing(
                err ->
                    ctx.verify(
                        () -> {
                          assertThat(err).isInstanceOf(ReplyException.class);
                          assertThat(FailureCode.of((ReplyException) err))
                              .contains(FailureCode.OVERLOADED);
                          ctx.completeNow();
                        })));
  }

  /**
   * An event no row can hold (here a metric without a value, which the driver refuses to bind)
   * makes building the write plan throw: the writer answers at once with INTERNAL and gives its
   * capacity back, so a full-size request still fits afterwards.
   */
  @Test
  void aWritePlanThatThrowsIsAnsweredAndLeaksNoCapacity(Vertx vertx, VertxTestContext ctx) {
    // one after another: each broken plan must give its capacity back before the next arrives
    // (sent together, 60 events would exceed the limit of 50 and be refused as overloaded)
    List<Object> refused = new ArrayList<>();
    long t0 = System.nanoTime();
    Future<Void> chain = Future.succeededFuture();
    for (int r = 0; r < 3; r++) {
      chain =
          chain.compose(
              v ->
                  sendBrokenPlan(vertx)
                      .map(
                          err -> {
                            refused.add(err);
                            return null;
                          }));
    }
    chain
        .compose(
            all -> {
              long waitedMs = (System.nanoTime() - t0) / 1_000_000;
              ctx.verify(
                  () -> {
                    assertThat(refused).hasSize(3);
                    for (Object err : refused) {
                      assertThat(err).isInstanceOf(ReplyException.class);
                      assertThat(FailureCode.of((ReplyException) err))
                          .contains(FailureCode.INTERNAL);
                    }
                    assertThat(waitedMs).as("answered, not timed out").isLessThan(10_000);
                  });
              if (ctx.failed()) {
                return Future.failedFuture("the broken plans were not answered as expected");
              }
              // 60 events were refused; the writer's limit is 50, so 50 fit only if none leaked
              return vertx
                  .eventBus()
                  .<PersistResult>request(
                      Addresses.WRITER_PERSIST.address(),
                      new PersistRequest(
                          events(device(), 50, System.currentTimeMillis() - 90_000),
                          PersistRequest.Source.KAFKA),
                      TIMEOUT);
            })
        .onComplete(
            ctx.succeeding(
                reply ->
                    ctx.verify(
                        () -> {
                          assertThat(reply.body().written()).isEqualTo(50);
                          ctx.completeNow();
                        })));
  }

  /** A batch whose plan throws (a null metric value); completes with the failure it got. */
  private static Future<Object> sendBrokenPlan(Vertx vertx) {

    List<Event> batch = new ArrayList<>(events(device(), 20, System.currentTimeMillis() - 90_000));
    Map<String, Double> broken = new java.util.HashMap<>();
    broken.put("temperature", null);
    Event bad = batch.get(7);
    batch.set(
        7,
        new Event(
            bad.deviceId(),
            bad.ts(),
            bad.eventId(),
            bad.deviceType(),
            bad.status(),
            bad.code(),
            broken,
            Map.of(),
            null));
    return vertx
        .eventBus()
        .request(
            Addresses.WRITER_PERSIST.address(),
            new PersistRequest(batch, PersistRequest.Source.KAFKA),
            TIMEOUT)
        .transform(
            ar ->
                ar.failed()
                    ? Future.succeededFuture(ar.cause())
                    : Future.failedFuture("a broken plan was written"));
  }

  @Test
  void queryPagesADeviceWithPositionsUntilTheLastPage(Vertx vertx, VertxTestContext ctx) {
    String device = device();
    List<Event> written = events(device, 7, System.currentTimeMillis() - 300_000);
    List<String> seen = new ArrayList<>();
    vertx
        .eventBus()
        .request(
            Addresses.WRITER_PERSIST.address(),
            new PersistRequest(written, PersistRequest.Source.HTTP),
            TIMEOUT)
        .compose(v -> pageAll(vertx, device, null, seen, 0))
        .onComplete(
            ctx.succeeding(
                pages ->
                    ctx.verify(
                        () -> {
                          assertThat(pages).isEqualTo(3);
                          assertThat(seen)
                              .containsExactly("e6", "e5", "e4", "e3", "e2", "e1", "e0");
                          ctx.completeNow();
                        })));
  }

  private static Future<Integer> pageAll(
      Vertx vertx, String device, PagePosition pos, List<String> seen, int pages) {
    return vertx
        .eventBus()
        .<EventPage>request(
            DeviceEventsQuery.ENDPOINT.address(),
            new DeviceEventsQuery.Request(device, 0, Long.MAX_VALUE, 3, pos),
            TIMEOUT)
        .compose(
            reply -> {
              reply.body().items().forEach(e -> seen.add(e.eventId()));
              PagePosition next = reply.body().next();
              return next == null
                  ? Future.succeededFuture(pages + 1)
                  : pageAll(vertx, device, next, seen, pages + 1);
            });
  }

  @Test
  void latestOfADeviceWithoutEventsFailsAsNotFound(Vertx vertx, VertxTestContext ctx) {
    vertx
        .eventBus()
        .request(
            DeviceLatestQuery.ENDPOINT.address(), new DeviceLatestQuery.Request(device()), TIMEOUT)
        .onComplete(
            ctx.failing(
                err ->
                    ctx.verify(
                        () -> {
                          assertThat(FailureCode.of((ReplyException) err))
                              .contains(FailureCode.NOT_FOUND);
                          ctx.completeNow();
                        })));
  }

  @Test
  void counterVerticleRepliesOnceTheIncrementsAreWritten(Vertx vertx, VertxTestContext ctx) {
    String device = device();
    long hour = TimeBuckets.hourOf(System.currentTimeMillis() - 30_000);
    List<CountFacts.Fact> facts =
        List.of(
            new CountFacts.Fact(device, hour, "meter", "normal", 200, 3),
            new CountFacts.Fact(device, hour, "meter", "fault", 500, 1));
    int shard = RowKeys.salt(device, config.rollups().shards());
    CassandraClient client = CassandraClients.shared(vertx, config.cassandra());
    vertx
        .eventBus()
        .<Integer>request(
            Addresses.COUNTERS_APPLY.address(), new CountRequest(null, facts), TIMEOUT)
        .compose(
            reply -> {
              ctx.verify(() -> assertThat(reply.body()).isEqualTo(2));
              return client.executeWithFullFetch(
                  SimpleStatement.newInstance(
                      "SELECT name, events FROM "
                          + config.cassandra().keyspace()
                          + ".device_counts_by_hour WHERE day = ? AND shard = ? AND device_id = ?",
                      TimeBuckets.utcDay(hour),
                      shard,
                      device));
            })
        .onComplete(
            ctx.succeeding(
                rows ->
                    ctx.verify(
                        () -> {
                          Map<String, Long> byName = new java.util.TreeMap<>();
                          rows.forEach(r -> byName.put(r.getString(0), r.getLong(1)));
                          assertThat(byName)
                              .containsExactlyEntriesOf(
                                  new java.util.TreeMap<>(
                                      Map.of("status:normal", 3L, "status:fault", 1L)));
                          ctx.completeNow();
                        })));
  }
}
