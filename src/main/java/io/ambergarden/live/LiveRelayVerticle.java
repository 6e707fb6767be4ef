package io.ambergarden.live;

import io.ambergarden.bus.Addresses;
import io.ambergarden.bus.DurableEvents;
import io.ambergarden.bus.PersistRequest;
import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.BodyFormat;
import io.ambergarden.event.Event;
import io.ambergarden.event.EventParser;
import io.ambergarden.kafka.KafkaSettings;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.kafka.client.common.TopicPartition;
import io.vertx.kafka.client.consumer.KafkaConsumer;
import io.vertx.kafka.client.consumer.KafkaConsumerRecord;
import io.vertx.kafka.client.consumer.KafkaConsumerRecords;
import io.vertx.kafka.client.producer.KafkaProducer;
import io.vertx.kafka.client.producer.KafkaProducerRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cross-instance fan-out of the live feed through a Kafka topic. Durable events of this instance go
 * to its own WebSocket clients at once, on {@link Addresses#LIVE_EVENTS}, and are produced to
 * live.topic with an origin header, many per record ({@link LiveRecords}). Every instance reads the
 * whole topic from its end (no consumer group, nothing committed) and publishes the other
 * instances' events the same way. Records are decoded only while this instance has live clients,
 * and never its own, which the decode would only drop. Each instance also announces itself on the
 * topic (an empty record) every presence interval; one that has seen no other instance there
 * produces nothing but these announcements ({@link LivePeers}). The feed is best effort: an event
 * that misses it is still in Cassandra, and since= replays it.
 */
public final class LiveRelayVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(LiveRelayVerticle.class);
  private static final Duration POLL = Duration.ofMillis(100);
  static final String ORIGIN_HEADER = "amber.origin";

  /** Well under the broker's and producer's 1 MiB defaults. */
  private static final int MAX_RECORD_BYTES = 256 * 1024;

  /** The producer's buffer.memory; the relay holds no more than that on its way to Kafka. */
  private static final long MAX_PENDING_BYTES = 16L << 20;

  private static final int MAX_PENDING_RECORDS = 1024;

  /** Peers remembered; a deployment has far fewer instances. */
  private static final int MAX_PEERS = 1024;

  /** Announcements missed before a peer is taken as gone. */
  private static final int PRESENCE_TIMEOUT_INTERVALS = 4;

  private static final byte[] PRESENCE = new byte[0];

  private final AmberConfig config;
  private final EventParser parser;
  private final MeterRegistry registry;
  private final LiveConnections clients;
  private final String instanceId;
  private final byte[] originId;
  private final Buffer originHeader;
  private KafkaProducer<byte[], byte[]> producer;
  private KafkaConsumer<byte[], byte[]> consumer;
  private MessageConsumer<DurableEvents> durable;
  private Counter dropped;
  private Counter unshared;
  private LivePeers peers;
  private volatile int peersSeen;
  private long presenceTimer = -1;
  private RelaySends<KafkaProducerRecord<byte[], byte[]>> sends;
  private boolean stopping;

  public LiveRelayVerticle(
      AmberConfig config,
      String instanceId,
      EventParser parser,
      MeterRegistry registry,
      LiveConnections clients) {
    this.config = config;
    this.instanceId = instanceId;
    this.originId = instanceId.getBytes(StandardCharsets.UTF_8);
    this.originHeader = Buffer.buffer(originId);
    this.parser = parser;
    this.registry = registry;
    this.clients = clients;
  }

  @Override
  public Future<?> start() {
    dropped =
        Counter.builder("amber.live.relay.dropped")
            .description(
                "Live fan-out records dropped: the relay's send queue was full, or they could not"
                    + " be produced or read back")
            .register(registry);
    unshared =
        Counter.builder("amber.live.relay.unshared")
            .description(
                "Durable events kept to this instance's own clients: no other instance was seen on"
                    + " the live topic")
            .register(registry);
    long presenceMillis = config.live().presenceInterval().toMillis();
    peers = new LivePeers(now(), PRESENCE_TIMEOUT_INTERVALS * presenceMillis, MAX_PEERS);
    Gauge.builder("amber.live.peers", this, r -> r.peersSeen)
        .description("Other instances seen on the live topic within the presence timeout")
        .register(registry);
    Map<String, String> p = KafkaSettings.producer(config.kafka(), "amber-live");
    // low latency, and never holding up the write path: acks=1, small linger, bounded buffer
    p.put("acks", "1");
    p.put("enable.idempotence", "false");
    p.put("linger.ms", "2");
    p.put("compression.type", "lz4"); // records hold whole write batches of similar JSON lines
    p.put("buffer.memory", Long.toString(MAX_PENDING_BYTES));
    producer = KafkaProducer.create(vertx, p, new ByteArraySerializer(), new ByteArraySerializer());
    sends = new RelaySends<>(producer::write, MAX_PENDING_BYTES, MAX_PENDING_RECORDS, dropped);
    Map<String, String> c = KafkaSettings.consumer(config.kafka());
    c.put("group.id", "amber-live-" + instanceId); // never joins: partitions are assigned
    c.put("client.id", "amber-live");
    c.put("auto.offset.reset", "latest");
    c.put("fetch.min.bytes", "1");
    c.put("fetch.max.wait.ms", "20");
    consumer =
        KafkaConsumer.create(vertx, c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    durable = vertx.eventBus().consumer(Addresses.EVENTS_DURABLE, m -> relay(m.body()));
    return consumer
        .partitionsFor(config.live().topic())
        .compose(
            infos -> {
              Set<TopicPartition> tps =
                  infos.stream()
                      .map(i -> new TopicPartition(i.getTopic(), i.getPartition()))
                      .collect(Collectors.toSet());
              return consumer
                  .assign(tps)
                  .compose(v -> consumer.seekToEnd(tps))
                  .compose(
                      v -> {
                        // position() resolves the lazy seek now, so events durable after start()
                        // are all read
                        List<Future<Long>> positions =
                            tps.stream().map(consumer::position).toList();
                        return Future.all(positions);
                      });
            })
        .compose(v -> durable.completion())
        .onSuccess(
            v -> {
              announce();
              presenceTimer = vertx.setPeriodic(presenceMillis, id -> announce());
              poll();
            });
  }

  private static long now() {
    return System.nanoTime() / 1_000_000;
  }

  private void announce() {
    sends.offer(
        KafkaProducerRecord.<byte[], byte[]>create(config.live().topic(), PRESENCE)
            .addHeader(ORIGIN_HEADER, originHeader),
        0);
  }

  @Override
  public Future<?> stop() {
    stopping = true;
    vertx.cancelTimer(presenceTimer);
    return durable
        .unregister()
        .eventually(() -> consumer.close())
        .eventually(() -> producer.close());
  }

  private void relay(DurableEvents batch) {
    vertx.eventBus().publish(Addresses.LIVE_EVENTS, batch);
    if (!config.live().relayWhenAlone() && !peers.shared(now())) {
      unshared.increment(batch.events().size());
      return;
    }
    for (byte[] value :
        LiveRecords.encode(batch.events(), parser.limits().maxBatch(), MAX_RECORD_BYTES)) {
      sends.offer(
          KafkaProducerRecord.<byte[], byte[]>create(config.live().topic(), value)
              .addHeader(ORIGIN_HEADER, originHeader),
          value.length);
    }
  }

  private void poll() {
    if (stopping) {
      return;
    }
    consumer
        .poll(POLL)
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                publish(ar.result());
              } else if (!stopping) {
                LOG.warn("live feed poll failed: {}", ar.cause().toString());
              }
              if (!stopping) {
                vertx.runOnContext(v -> poll());
              }
            });
  }

  private void publish(KafkaConsumerRecords<byte[], byte[]> records) {
    long now = now();
    boolean decode = clients.open() > 0;
    List<Event> events = new ArrayList<>();
    for (int i = 0; i < records.size(); i++) {
      KafkaConsumerRecord<byte[], byte[]> r = records.recordAt(i);
      Header origin = r.record().headers().lastHeader(ORIGIN_HEADER);
      if (origin != null && Arrays.equals(origin.value(), originId)) {
        continue;
      }
      peers.seen(origin == null ? "" : new String(origin.value(), StandardCharsets.UTF_8), now);
      if (!decode || r.value() == null || r.value().length == 0) {
        continue; // nobody to show it to, or an announcement
      }
      EventParser.BatchResult parsed = parser.parseBatch(r.value(), BodyFormat.NDJSON);
      if (parsed.ok()) {
        events.addAll(parsed.events());
      } else {
        dropped.increment();
      }
    }
    if (!events.isEmpty()) {
      vertx
          .eventBus()
          .publish(Addresses.LIVE_EVENTS, new DurableEvents(events, PersistRequest.Source.KAFKA));
    }
    peersSeen = peers.count(now);
  }
}
