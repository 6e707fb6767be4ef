package io.ambergarden.localrt;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Produces "0", "1", "2", … to one topic on its own thread (acks=all, idempotent, as the service
 * does) and remembers which were acknowledged and which failed. Stops on {@link #close()} or after
 * {@code limit} sends, so its memory stays bounded.
 */
final class SequenceProducer implements AutoCloseable {
  private final KafkaProducer<String, String> producer;
  private final String topic;
  private final int limit;
  private final BitSet acked = new BitSet();
  private final List<Exception> failures = new ArrayList<>();
  private final AtomicInteger sent = new AtomicInteger();
  private final Thread thread;
  private volatile boolean stopping;

  SequenceProducer(String bootstrap, String topic, int limit, Duration deliveryTimeout) {
    this.topic = topic;
    this.limit = limit;
    this.producer = new KafkaProducer<>(config(bootstrap, deliveryTimeout));
    this.thread = new Thread(this::run, "sequence-producer-" + topic);
  }

  static Properties config(String bootstrap, Duration deliveryTimeout) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(deliveryTimeout.toMillis()));
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(deliveryTimeout.toMillis()));
    p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return p;
  }

  SequenceProducer start() {
    thread.start();
    return this;
  }

  private void run() {
    while (!stopping && sent.get() < limit) {
      int n = sent.getAndIncrement();
      try {
        producer.send(
            new ProducerRecord<>(topic, Integer.toString(n)),
            (metadata, e) -> {
              synchronized (this) {
                if (e == null) {
                  acked.set(n);
                } else if (failures.size() < 100) {
                  failures.add(e);
                }
              }
            });
      } catch (RuntimeException e) {
        synchronized (this) {
          if (failures.size() < 100) {
            failures.add(e);
          }
        }
      }
      if (n % 100 == 99) {
        // keep the in-flight window small: a few hundred records, not the whole buffer
        producer.flush();
      }
    }
  }

  synchronized int ackedCount() {
    return acked.cardinality();
  }

  synchronized BitSet acked() {
    return (BitSet) acked.clone();
  }

  synchronized List<Exception> failures() {
    return List.copyOf(failures);
  }

  int sent() {
    return Math.min(sent.get(), limit);
  }

  /** Stops sending, waits for every outstanding send to end (acked or failed), and closes. */
  @Override
  public void close() {
    stopping = true;
    try {
      thread.join(Duration.ofMinutes(2).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close(Duration.ofMinutes(2));
  }
}
