package io.ambergarden.web.ingest;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.EventParser;
import io.ambergarden.kafka.KafkaSettings;
import io.ambergarden.metrics.AmberMeters;
import io.ambergarden.web.AccessHandler;
import io.ambergarden.web.EdgeRoutes;
import io.ambergarden.web.HttpBudgets;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.kafka.client.producer.KafkaProducer;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * POST /api/v1/events. In kafka mode it owns this verticle instance's producer; events still
 * waiting for the broker when it stops are dropped, never sent after their answer.
 */
public final class IngestRoutes implements EdgeRoutes {
  private static final AtomicInteger INSTANCES = new AtomicInteger();

  private final HttpIngestHandler handler;
  private final KafkaProducer<byte[], byte[]> producer;
  private final KafkaHandOff handOff;

  public IngestRoutes(
      Vertx vertx,
      AmberConfig config,
      EventParser parser,
      AmberMeters meters,
      HttpBudgets budgets,
      AccessHandler access) {
    if (config.ingest().mode() == AmberConfig.IngestMode.KAFKA) {
      producer =
          KafkaProducer.create(
              vertx,
              KafkaSettings.producer(config.kafka(), "amber-http-ingest"),
              new ByteArraySerializer(),
              new ByteArraySerializer());
      handOff =
          new KafkaHandOff(
              producer.unwrap(),
              "amber-http-produce-" + INSTANCES.incrementAndGet(),
              System::nanoTime);
    } else {
      producer = null;
      handOff = null;
    }
    handler =
        new HttpIngestHandler(
            vertx, config, parser, handOff, meters, budgets, access::deviceRefusal);
  }

  @Override
  public void mount(Router router) {
    // admission runs before the body is read; the handler reads the body itself
    router.post("/api/v1/events").handler(handler::admit);
  }

  @Override
  public Future<Void> stop() {
    if (producer == null) {
      return Future.succeededFuture();
    }
    handOff.close();
    return producer.close();
  }
}
