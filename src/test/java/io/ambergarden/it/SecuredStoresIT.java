package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.servererrors.UnauthorizedException;
import io.ambergarden.auth.ApiKeys;
import io.ambergarden.auth.KeyRecord;
import io.ambergarden.auth.Scope;
import io.ambergarden.localrt.CassandraNode;
import io.ambergarden.localrt.Certificates;
import io.ambergarden.localrt.KafkaBroker;
import io.ambergarden.localrt.RealServers;
import io.ambergarden.localrt.SecureCassandra;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The service through secured stores: a Cassandra node with PasswordAuthenticator, roles and client
 * TLS (started for this class only), and the shared broker's SASL_SSL listener (SCRAM-SHA-512, ACLs
 * as k8s/engines/strimzi-kafka.yaml's KafkaUser grants them). A full ingest-to-query cycle runs
 * through both; wrong credentials or an untrusted certificate stop startup with one line naming the
 * store and the cause.
 */
@ExtendWith(RealServers.class)
@Timeout(400)
class SecuredStoresIT {
  private static final String KEYSPACE = "amber_secure";
  private static final String SCHEMA_ROLE = "amber_schema";
  private static final String SERVICE_ROLE = "amber_service";
  private static final String SCHEMA_PASSWORD = UUID.randomUUID().toString();
  private static final String SERVICE_PASSWORD = UUID.randomUUID().toString();
  private static CassandraNode cassandra;
  private static KafkaBroker.SecureAccess kafka;
  private static Path dir;

  @BeforeAll
  static void startTheSecuredNode() throws Exception {
    dir = RealServers.runtime().options().baseDir().resolve("secure");
    cassandra = SecureCassandra.create(RealServers.runtime().options(), dir);
    cassandra.start();
    try (CqlSession su =
        cassandra.openSession(
            Duration.ofSeconds(30), CassandraNode.SUPERUSER, CassandraNode.SUPERUSER)) {
      // test-only literals: role statements take no bind markers
      su.execute(
          "CREATE ROLE "
              + SCHEMA_ROLE
              + " WITH PASSWORD = '"
              + SCHEMA_PASSWORD
              + "' AND LOGIN = true");
      su.execute("GRANT CREATE ON ALL KEYSPACES TO " + SCHEMA_ROLE);
      su.execute(
          "CREATE ROLE "
              + SERVICE_ROLE
              + " WITH PASSWORD = '"
              + SERVICE_PASSWORD
              + "' AND LOGIN = true");
    }
    kafka = RealServers.runtime().kafka().secureAccess().orElseThrow();
  }

  @AfterAll
  static void stopTheSecuredNode() {
    if (cassandra != null) {
      cassandra.stop();
    }
  }

  /** Topics and ACLs of one service instance, as the KafkaUser in k8s grants them. */
  private static Map<String, String> topicsWithAcls() throws Exception {
    String topic = "sec-" + UUID.randomUUID().toString().substring(0, 8);
    String dlq = topic + ".dlq";
    String live = topic + ".live";
    String group = topic + "-group";
    String user = "User:" + kafka.username();
    try (Admin admin = Admin.create(KafkaBroker.adminConfig(RealServers.kafkaBootstrap()))) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(topic, 2, (short) 1),
                  new NewTopic(dlq, 1, (short) 1),
                  new NewTopic(live, 1, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
      admin
          .createAcls(
              List.of(
                  allow(user, ResourceType.TOPIC, topic, PatternType.LITERAL, AclOperation.READ),
                  allow(user, ResourceType.TOPIC, topic, PatternType.LITERAL, AclOperation.WRITE),
                  allow(user, ResourceType.TOPIC, dlq, PatternType.LITERAL, AclOperation.WRITE),
                  allow(user, ResourceType.TOPIC, live, PatternType.LITERAL, AclOperation.READ),
                  allow(user, ResourceType.TOPIC, live, PatternType.LITERAL, AclOperation.WRITE),
                  allow(user, ResourceType.GROUP, group, PatternType.LITERAL, AclOperation.READ),
                  allow(
                      user,
                      ResourceType.GROUP,
                      "amber-live-",
                      PatternType.PREFIXED,
                      AclOperation.READ)))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    return Map.of(
        "kafka.topic", topic, "kafka.dlq-topic", dlq, "live.topic", live, "kafka.group-id", group);
  }

  private static AclBinding allow(
      String user, ResourceType type, String name, PatternType pattern, AclOperation op) {
    return new AclBinding(
        new ResourcePattern(type, name, pattern),
        new AccessControlEntry(user, "*", op, AclPermissionType.ALLOW));
  }

  /** The secured service's settings, every secret from this test. */
  private static Map<String, String> secured() {
    Map<String, String> cfg = new HashMap<>();
    cfg.put("cassandra.contact-points", "127.0.0.1:" + cassandra.cqlPort());
    cfg.put("cassandra.keyspace", KEYSPACE);
    cfg.put("cassandra.username", SERVICE_ROLE);
    cfg.put("cassandra.password", SERVICE_PASSWORD);
    cfg.put("cassandra.schema.username", SCHEMA_ROLE);
    cfg.put("cassandra.schema.password", SCHEMA_PASSWORD);
    cfg.put("cassandra.schema.grant-to", SERVICE_ROLE);
    cfg.put("cassandra.ssl.enabled", "true");
    CassandraNode.Security tls = cassandra.security().orElseThrow();
    cfg.put("cassandra.ssl.truststore-path", tls.truststore().toString());
    cfg.put("cassandra.ssl.truststore-password", tls.storePassword());
    cfg.put("kafka.bootstrap-servers", kafka.bootstrapServers());
    cfg.put("kafka.security.protocol", "SASL_SSL");
    cfg.put("kafka.sasl.mechanism", "SCRAM-SHA-512");
    cfg.put("kafka.sasl.username", kafka.username());
    cfg.put("kafka.sasl.password", kafka.password());
    cfg.put("kafka.ssl.truststore-location", kafka.truststore().toString());
    cfg.put("kafka.ssl.truststore-password", kafka.truststorePassword());
    cfg.put("kafka.create-topics", "false");
    return cfg;
  }

  @Test
  void aFullCycleRunsThroughSaslSslKafkaAndTlsCassandraWithLeastPrivilege() throws Exception {
    Map<String, String> cfg = secured();
    cfg.putAll(topicsWithAcls());
    String device = "sec-" + UUID.randomUUID().toString().substring(0, 8);
    long now = System.currentTimeMillis();
    try (TestService s = TestService.start(cfg)) {
      String key = adminKey(s);
      StringBuilder batch = new StringBuilder("[");
      for (int i = 0; i < 5; i++) {
        batch
            .append(i == 0 ? "" : ",")
            .append("{\"deviceId\":\"")
            .append(device)
            .append("\",\"ts\":")
            .append(now - i)
            .append(",\"eventId\":\"e")
            .append(i)
            .append("\",\"code\":200}");
      }
      HttpResponse<String> posted =
          TestService.sendAs(
              HttpRequest.newBuilder(s.uri("/api/v1/events"))
                  .header("Authorization", "Bearer " + key)
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(batch.append("]").toString()))
                  .build());
      assertThat(posted.statusCode()).as(posted.body()).isEqualTo(202);
      // produced over SASL_SSL, consumed under the group's ACL, written and read over TLS
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  new JsonObject(
                              TestService.sendAs(
                                      HttpRequest.newBuilder(
                                              s.uri("/api/v1/devices/" + device + "/events"))
                                          .header("Authorization", "Bearer " + key)
                                          .build())
                                  .body())
                          .getJsonArray("items")
                          .size()
                      == 5);
      assertThat(s.get("/health/ready").statusCode()).isEqualTo(200);
    }
    // the service's role reads and writes, and nothing more
    try (CqlSession service =
        cassandra.openSession(Duration.ofSeconds(10), SERVICE_ROLE, SERVICE_PASSWORD)) {
      assertThat(
              service
                  .execute(
                      "SELECT count(*) FROM " + KEYSPACE + ".latest_by_device WHERE device_id = ?",
                      device)
                  .one()
                  .getLong(0))
          .isEqualTo(1);
      assertThatThrownBy(
              () -> service.execute("CREATE TABLE " + KEYSPACE + ".nope (k int PRIMARY KEY)"))
          .isInstanceOf(UnauthorizedException.class);
      assertThatThrownBy(() -> service.execute("DROP TABLE " + KEYSPACE + ".api_keys"))
          .isInstanceOf(UnauthorizedException.class);
    }
    // the Kafka user writes only where its ACLs say
    Properties p = new Properties();
    p.put("bootstrap.servers", kafka.bootstrapServers());
    p.putAll(io.ambergarden.kafka.KafkaSettings.security(securedKafka()));
    p.put("max.block.ms", "10000");
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      String other = "sec-other-" + UUID.randomUUID().toString().substring(0, 8);
      try (Admin admin = Admin.create(KafkaBroker.adminConfig(RealServers.kafkaBootstrap()))) {
        admin
            .createTopics(List.of(new NewTopic(other, 1, (short) 1)))
            .all()
            .get(30, TimeUnit.SECONDS);
      }
      assertThatThrownBy(
              () ->
                  producer
                      .send(new ProducerRecord<>(other, "k".getBytes(StandardCharsets.UTF_8)))
                      .get(20, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(TopicAuthorizationException.class);
    }
  }

  @Test
  void wrongCassandraCredentialsStopStartupWithOneLine() throws Exception {
    Map<String, String> cfg = secured();
    cfg.put("cassandra.password", "not-" + SERVICE_PASSWORD);
    assertThat(startupLine(cfg))
        .startsWith("Cassandra refused the credentials (cassandra.username")
        .doesNotContain("\n")
        .doesNotContain(SERVICE_PASSWORD);
    // as a process: exit code 1, and the line in its log
    Map<String, String> env = new HashMap<>(cfg);
    env.putAll(topicsWithAcls());
    assertThatThrownBy(() -> ServiceProcess.start("bad-cassandra-password", env))
        .hasMessageContaining("exited with 1")
        .hasMessageContaining("startup failed: Cassandra refused the credentials");
  }

  @Test
  void anUntrustedCassandraCertificateStopsStartupWithOneLine() throws Exception {
    Certificates other =
        Certificates.authority(Files.createTempDirectory(dir, "other-ca"), "Other CA", "changeit");
    Map<String, String> cfg = secured();
    cfg.put("cassandra.ssl.truststore-path", other.truststore().toString());
    cfg.put("cassandra.ssl.truststore-password", "changeit");
    assertThat(startupLine(cfg))
        .startsWith("Cassandra TLS handshake failed")
        .contains("cassandra.ssl.truststore-path")
        .doesNotContain("\n");
  }

  @Test
  void wrongKafkaCredentialsOrAnUntrustedBrokerStopStartupWithOneLine() throws Exception {
    Map<String, String> badPassword = secured();
    badPassword.putAll(topicsWithAcls());
    badPassword.put("kafka.sasl.password", "not-the-password");
    assertThat(startupLine(badPassword))
        .startsWith("Kafka refused the SASL credentials (kafka.sasl.username")
        .doesNotContain("\n");

    Certificates other =
        Certificates.authority(Files.createTempDirectory(dir, "other-ca"), "Other CA", "changeit");
    Map<String, String> untrusted = secured();
    untrusted.putAll(topicsWithAcls());
    untrusted.put("kafka.ssl.truststore-location", other.truststore().toString());
    untrusted.put("kafka.ssl.truststore-password", "changeit");
    assertThat(startupLine(untrusted))
        .startsWith("Kafka TLS handshake failed")
        .contains("kafka.ssl.truststore-location")
        .doesNotContain("\n");
  }

  private static io.ambergarden.config.SecurityConfig.KafkaSecurity securedKafka() {
    return io.ambergarden.config.ConfigLoader.load(Map.of(), new Properties(), secured())
        .kafka()
        .security();
  }

  /** The message startup failed with (the service must not start). */
  private static String startupLine(Map<String, String> cfg) {
    try (TestService s = TestService.start(cfg)) {
      throw new AssertionError("the service started with " + cfg.keySet());
    } catch (IllegalStateException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t.getClass().getSimpleName().equals("StartupFailure")) {
          return t.getMessage();
        }
      }
      throw new AssertionError("no StartupFailure in the chain", e);
    }
  }

  /** An admin key in the secured keyspace, through the running service's store. */
  private static String adminKey(TestService s) throws Exception {
    ApiKeys.Minted m = ApiKeys.mint();
    s.app()
        .gatekeeper()
        .store()
        .create(
            new KeyRecord(
                m.id(),
                "secured-it",
                m.hash(),
                Set.of(Scope.values()),
                List.of(),
                0,
                Instant.now(),
                "it",
                null))
        .await(30, TimeUnit.SECONDS);
    return m.text();
  }
}
