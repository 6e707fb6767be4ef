package io.ambergarden.localrt;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.ManualMetadataUpdater;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.clients.NetworkClientUtils;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.network.PlaintextChannelBuilder;
import org.apache.kafka.common.network.Selector;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.Time;

/**
 * One broker's own view of a topic: a metadata request sent to that broker and no other. Admin and
 * consumer clients send it to whichever broker they like, and a broker cut off from the controllers
 * keeps answering with what it knew before the cut, so a fault injector that must know the truth
 * asks every broker. Built on kafka-clients' network layer (3.7.1 here), as Admin is.
 */
final class BrokerMetadataView {
  private static final int TIMEOUT_MS = 3000;

  /** One broker's answer: per partition its leader, leader epoch, replicas and ISR. */
  record Partition(PartitionReplicas replicas, int leaderEpoch) {}

  private BrokerMetadataView() {}

  /** The partitions of {@code topic} as the broker at host:port describes them. */
  static List<Partition> describe(String host, int port, String topic) {
    LogContext log = new LogContext("[metadata view " + host + ":" + port + "] ");
    Time time = Time.SYSTEM;
    PlaintextChannelBuilder channels = new PlaintextChannelBuilder(null);
    channels.configure(Map.of());
    try (Metrics metrics = new Metrics();
        NetworkClient client =
            new NetworkClient(
                new Selector(60_000, metrics, time, "metadata-view", channels, log),
                new ManualMetadataUpdater(),
                "amber-metadata-view",
                1,
                100,
                500,
                64 * 1024,
                64 * 1024,
                TIMEOUT_MS,
                TIMEOUT_MS,
                TIMEOUT_MS,
                time,
                true,
                new ApiVersions(),
                log)) {
      Node node = new Node(-1, host, port);
      if (!NetworkClientUtils.awaitReady(client, node, time, TIMEOUT_MS)) {
        throw new LocalRuntimeException(
            host + ":" + port + " did not answer within " + TIMEOUT_MS + " ms");
      }
      ClientRequest request =
          client.newClientRequest(
              node.idString(),
              new MetadataRequest.Builder(List.of(topic), false),
              time.milliseconds(),
              true,
              TIMEOUT_MS,
              null);
      ClientResponse response = NetworkClientUtils.sendAndReceive(client, request, time);
      if (response.wasDisconnected() || response.responseBody() == null) {
        throw new LocalRuntimeException(host + ":" + port + " gave no metadata for " + topic);
      }
      return partitions((MetadataResponse) response.responseBody(), topic);
    } catch (IOException e) {
      throw new LocalRuntimeException(host + ":" + port + " gave no metadata: " + e, e);
    }
  }

  static List<Partition> partitions(MetadataResponse response, String topic) {
    List<Partition> out = new ArrayList<>();
    for (MetadataResponse.TopicMetadata t : response.topicMetadata()) {
      if (!t.topic().equals(topic)) {
        continue;
      }
      if (t.error() != Errors.NONE) {
        throw new LocalRuntimeException("metadata of " + topic + ": " + t.error());
      }
      for (MetadataResponse.PartitionMetadata p : t.partitionMetadata()) {
        OptionalInt leader =
            p.leaderId.filter(id -> id >= 0).map(OptionalInt::of).orElse(OptionalInt.empty());
        out.add(
            new Partition(
                new PartitionReplicas(
                    topic, p.partition(), leader, p.replicaIds, p.inSyncReplicaIds),
                p.leaderEpoch.orElse(-1)));
      }
    }
    out.sort(java.util.Comparator.comparingInt(p -> p.replicas().partition()));
    return out;
  }
}
