package io.ambergarden.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.DuplicateKeyException;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.representer.Representer;

/**
 * Static checks of what k8s/ installs, read from the rendered production overlay and the engines
 * ({@code kubectl kustomize}, see {@link Kustomize}): strict parsing, known kinds and fields, the
 * restricted security profile of the Deployment, its environment against the application's config
 * keys, the Strimzi and K8ssandra resources, and that every policy object selects the Deployment's
 * pods. K8sOverlaysTest runs the same checks on every overlay and checks what the overlays add.
 *
 * <p>Each check is a function that returns a list of problems. The real manifests must give none,
 * and the {@code ...Catches...} tests break a fresh copy of a manifest and assert that the same
 * function reports it, so no check can pass vacuously.
 */
class K8sManifestsTest {
  private static final Path K8S = Kustomize.K8S;
  private static final Path PROPERTIES = Path.of("conf/amber.properties");
  static final Path KUBERNETES_GUIDE = Path.of("docs/operations/kubernetes.md");
  private static final Path MAIN_CLASS = Path.of("src/main/java/io/ambergarden/AmberGarden.java");

  /**
   * What the brief of these checks says to assume when nothing says how long the app takes to stop.
   */
  private static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(30);

  private static final Set<String> KNOWN_KINDS =
      Set.of(
          "v1/Namespace",
          "v1/ConfigMap",
          "v1/Secret",
          "v1/Service",
          "apps/v1/Deployment",
          "batch/v1/Job",
          "autoscaling/v2/HorizontalPodAutoscaler",
          "keda.sh/v1alpha1/ScaledObject",
          "keda.sh/v1alpha1/TriggerAuthentication",
          "policy/v1/PodDisruptionBudget",
          "networking.k8s.io/v1/NetworkPolicy",
          "networking.k8s.io/v1/Ingress",
          "cert-manager.io/v1/Issuer",
          "cert-manager.io/v1/Certificate",
          "kafka.strimzi.io/v1/Kafka",
          "kafka.strimzi.io/v1/KafkaNodePool",
          "kafka.strimzi.io/v1/KafkaTopic",
          "kafka.strimzi.io/v1/KafkaUser",
          "k8ssandra.io/v1alpha1/K8ssandraCluster",
          "monitoring.coreos.com/v1/PrometheusRule",
          "monitoring.coreos.com/v1/PodMonitor");

  /** Kinds only some overlays install: autoscalers (production-keda) and Secrets (never). */
  static final Set<String> OPTIONAL_KINDS =
      Set.of(
          "v1/Secret",
          "autoscaling/v2/HorizontalPodAutoscaler",
          "keda.sh/v1alpha1/ScaledObject",
          "keda.sh/v1alpha1/TriggerAuthentication");

  /**
   * The Cassandra version the local runtime and the tests run (src/dev/localrt/cassandra-pom.xml).
   */
  private static final Path LOCAL_CASSANDRA_POM = Path.of("src/dev/localrt/cassandra-pom.xml");

  /**
   * Secrets the pods read but k8s/ must not ship (a `kubectl apply -f k8s/` would deploy known
   * values): the operator creates them, as docs/operations/security.md shows, with these keys.
   */
  static final Map<String, Set<String>> EXTERNAL_SECRETS =
      Map.of(
          "amber-garden-credentials",
          Set.of(
              "cassandra-username",
              "cassandra-password",
              "cursor-key",
              "cassandra-truststore-password",
              "kafka-username",
              "s3-access-key",
              "s3-secret-key"),
          "amber-garden-schema",
          Set.of("username", "password"),
          "amber-garden-kafka-user",
          Set.of("password"),
          "amber-garden-cassandra-ca",
          Set.of("truststore.p12"),
          "amber-kafka-cluster-ca-cert",
          Set.of("ca.crt"));

  /**
   * Where the ingress controller runs (ingress-nginx's own manifests and chart use this namespace):
   * the only source the NetworkPolicy may admit to the API port.
   */
  static final String INGRESS_CONTROLLER_NAMESPACE = "ingress-nginx";

  private static final String NGINX = "nginx.ingress.kubernetes.io/";

  /** Kafka permissions the service needs: (resource type, name) -> operations. */
  static final Map<String, Set<String>> NEEDED_ACLS =
      Map.of(
          "topic amber.events", Set.of("Read"),
          "group amber-garden", Set.of("Read"),
          "topic amber.events.dlq", Set.of("Write"),
          "topic amber.live", Set.of("Read", "Write"));

  // ---- field allow-lists of the core kinds (from the Kubernetes API reference, trimmed to stable
  // fields) ----

  private static final Set<String> OBJECT_FIELDS = Set.of("apiVersion", "kind", "metadata", "spec");
  private static final Map<String, Set<String>> TOP_LEVEL_FIELDS =
      Map.of(
          "ConfigMap", Set.of("apiVersion", "kind", "metadata", "data", "binaryData", "immutable"),
          "Secret",
              Set.of("apiVersion", "kind", "metadata", "data", "stringData", "type", "immutable"));
  private static final Set<String> METADATA_FIELDS =
      Set.of(
          "name",
          "namespace",
          "labels",
          "annotations",
          "generateName",
          "finalizers",
          "ownerReferences");
  private static final Map<String, Set<String>> SPEC_FIELDS =
      Map.of(
          "Namespace", Set.of("finalizers"),
          "Deployment",
              Set.of(
                  "replicas",
                  "selector",
                  "template",
                  "strategy",
                  "minReadySeconds",
                  "revisionHistoryLimit",
                  "progressDeadlineSeconds",
                  "paused"),
          "Service",
              Set.of(
                  "selector",
                  "ports",
                  "type",
                  "clusterIP",
                  "clusterIPs",
                  "externalIPs",
                  "externalName",
                  "externalTrafficPolicy",
                  "internalTrafficPolicy",
                  "healthCheckNodePort",
                  "ipFamilies",
                  "ipFamilyPolicy",
                  "loadBalancerClass",
                  "loadBalancerIP",
                  "loadBalancerSourceRanges",
                  "publishNotReadyAddresses",
                  "sessionAffinity",
                  "sessionAffinityConfig",
                  "allocateLoadBalancerNodePorts",
                  "trafficDistribution"),
          "HorizontalPodAutoscaler",
              Set.of("scaleTargetRef", "minReplicas", "maxReplicas", "metrics", "behavior"),
          "PodDisruptionBudget",
              Set.of("minAvailable", "maxUnavailable", "selector", "unhealthyPodEvictionPolicy"),
          "NetworkPolicy", Set.of("podSelector", "policyTypes", "ingress", "egress"),
          "Ingress", Set.of("ingressClassName", "defaultBackend", "rules", "tls"),
          "Job",
              Set.of(
                  "template",
                  "parallelism",
                  "completions",
                  "completionMode",
                  "backoffLimit",
                  "backoffLimitPerIndex",
                  "maxFailedIndexes",
                  "activeDeadlineSeconds",
                  "ttlSecondsAfterFinished",
                  "selector",
                  "manualSelector",
                  "suspend",
                  "podFailurePolicy",
                  "podReplacementPolicy",
                  "successPolicy",
                  "managedBy"));
  private static final Set<String> POD_TEMPLATE_FIELDS = Set.of("metadata", "spec");
  private static final Set<String> POD_SPEC_FIELDS =
      Set.of(
          "containers",
          "initContainers",
          "ephemeralContainers",
          "volumes",
          "securityContext",
          "serviceAccountName",
          "serviceAccount",
          "automountServiceAccountToken",
          "terminationGracePeriodSeconds",
          "activeDeadlineSeconds",
          "affinity",
          "nodeSelector",
          "nodeName",
          "tolerations",
          "topologySpreadConstraints",
          "priorityClassName",
          "priority",
          "imagePullSecrets",
          "dnsPolicy",
          "dnsConfig",
          "hostname",
          "subdomain",
          "hostNetwork",
          "hostPID",
          "hostIPC",
          "hostUsers",
          "shareProcessNamespace",
          "restartPolicy",
          "schedulerName",
          "runtimeClassName",
          "enableServiceLinks",
          "preemptionPolicy",
          "overhead",
          "readinessGates",
          "setHostnameAsFQDN",
          "os",
          "hostAliases",
          "schedulingGates",
          "resourceClaims");
  private static final Set<String> CONTAINER_FIELDS =
      Set.of(
          "name",
          "image",
          "imagePullPolicy",
          "command",
          "args",
          "workingDir",
          "ports",
          "env",
          "envFrom",
          "resources",
          "resizePolicy",
          "restartPolicy",
          "volumeMounts",
          "volumeDevices",
          "livenessProbe",
          "readinessProbe",
          "startupProbe",
          "lifecycle",
          "terminationMessagePath",
          "terminationMessagePolicy",
          "securityContext",
          "stdin",
          "stdinOnce",
          "tty");
  private static final Set<String> POD_SECURITY_FIELDS =
      Set.of(
          "fsGroup",
          "fsGroupChangePolicy",
          "runAsGroup",
          "runAsNonRoot",
          "runAsUser",
          "seLinuxOptions",
          "seccompProfile",
          "appArmorProfile",
          "supplementalGroups",
          "supplementalGroupsPolicy",
          "sysctls",
          "windowsOptions",
          "seLinuxChangePolicy");
  private static final Set<String> CONTAINER_SECURITY_FIELDS =
      Set.of(
          "allowPrivilegeEscalation",
          "capabilities",
          "privileged",
          "procMount",
          "readOnlyRootFilesystem",
          "runAsGroup",
          "runAsNonRoot",
          "runAsUser",
          "seLinuxOptions",
          "seccompProfile",
          "appArmorProfile",
          "windowsOptions");
  private static final Set<String> PROBE_FIELDS =
      Set.of(
          "httpGet",
          "tcpSocket",
          "exec",
          "grpc",
          "initialDelaySeconds",
          "periodSeconds",
          "timeoutSeconds",
          "successThreshold",
          "failureThreshold",
          "terminationGracePeriodSeconds");
  private static final Set<String> LIFECYCLE_FIELDS = Set.of("postStart", "preStop");
  private static final Set<String> HANDLER_FIELDS = Set.of("exec", "httpGet", "tcpSocket", "sleep");

  /** One YAML document of one manifest file. */
  record Doc(Path file, int index, Map<String, Object> body) {
    String kind() {
      return str(body.get("kind"));
    }

    String apiVersion() {
      return str(body.get("apiVersion"));
    }

    String name() {
      return str(at(body, "metadata", "name"));
    }

    String where() {
      return file + "#" + index + " (" + kind() + " " + name() + ")";
    }
  }

  // =================================================== tests
  // ===================================================

  @Test
  void everyManifestParsesStrictlyWithAKnownKindAndKnownFields() {
    assertThat(renderedKindProblems(loadAll())).isEmpty();
  }

  /** Known kinds with known fields, the required kinds present, and no object declared twice. */
  static List<String> renderedKindProblems(List<Doc> docs) {
    List<String> out = new ArrayList<>();
    Set<String> required = new TreeSet<>(KNOWN_KINDS);
    required.removeAll(OPTIONAL_KINDS);
    Set<String> present = new TreeSet<>();
    docs.forEach(d -> present.add(d.apiVersion() + "/" + d.kind()));
    required.removeAll(present);
    if (!required.isEmpty()) {
      out.add("kinds missing: " + required);
    }
    for (Doc d : docs) {
      structureProblems(d).forEach(p -> out.add(d.where() + ": " + p));
    }
    Set<String> ids = new TreeSet<>();
    for (Doc d : docs) {
      String id = d.kind() + "/" + str(at(d.body(), "metadata", "namespace")) + "/" + d.name();
      if (!ids.add(id)) {
        out.add("declared twice: " + id);
      }
    }
    return out;
  }

  @Test
  void strictParsingCatchesDuplicateKeysNonMappingsUnknownKindsAndTypos() {
    assertThatThrownBy(
            () ->
                parseStrict(
                    "apiVersion: v1\nkind: ConfigMap\nkind: Secret\nmetadata: {name: x}\n", "dup"))
        .hasMessageContaining("dup document 0")
        .hasCauseInstanceOf(DuplicateKeyException.class);
    assertThatThrownBy(
            () ->
                parseStrict(
                    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n- a list\n",
                    "list"))
        .hasMessageContaining("not a mapping");
    assertThatThrownBy(
            () ->
                parseStrict("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n", "empty"))
        .hasMessageContaining("not a mapping");

    assertThat(structureProblems(doc("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")))
        .isEmpty();
    assertThat(structureProblems(doc("kind: ConfigMap\nmetadata: {name: x}\n")))
        .anyMatch(p -> p.contains("apiVersion"));
    assertThat(structureProblems(doc("apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n")))
        .anyMatch(p -> p.contains("metadata.name"));
    assertThat(
            structureProblems(
                doc("apiVersion: apps/v1beta1\nkind: Deployment\nmetadata: {name: x}\n")))
        .anyMatch(p -> p.contains("unknown kind"));
    assertThat(
            structureProblems(
                doc("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndatas: {}\n")))
        .anyMatch(p -> p.contains("datas"));

    Doc deployment = fresh("Deployment");
    assertThat(structureProblems(deployment)).isEmpty();
    map(deployment.body().get("spec")).put("replcias", 3);
    assertThat(structureProblems(deployment)).anyMatch(p -> p.contains("replcias"));
    Doc pod = fresh("Deployment");
    map(at(pod.body(), "spec", "template", "spec")).put("automountServiceAccountTokn", false);
    assertThat(structureProblems(pod)).anyMatch(p -> p.contains("automountServiceAccountTokn"));
    Doc container = fresh("Deployment");
    firstContainer(container.body()).put("readinesProbe", Map.of());
    assertThat(structureProblems(container)).anyMatch(p -> p.contains("readinesProbe"));
    Doc security = fresh("Deployment");
    map(firstContainer(security.body()).get("securityContext")).put("readOnlyRootFileSystem", true);
    assertThat(structureProblems(security)).anyMatch(p -> p.contains("readOnlyRootFileSystem"));
    Doc hpa =
        doc(
            "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: x}\n"
                + "spec: {minReplica: 2}\n");
    assertThat(structureProblems(hpa)).anyMatch(p -> p.contains("minReplica"));
    assertThat(
            structureProblems(
                doc("apiVersion: kafka.strimzi.io/v1beta2\nkind: Kafka\nmetadata: {name: x}\n")))
        .as("Strimzi's v1beta2 is gone from 1.0")
        .anyMatch(p -> p.contains("unknown kind"));
  }

  @Test
  void noManifestShipsSecretValuesAndTheSecurityPageSaysHowToCreateThem() throws IOException {
    assertThat(secretProblems(loadAll())).isEmpty();
    String security = Files.readString(Path.of("docs/operations/security.md"));
    for (String secret : EXTERNAL_SECRETS.keySet()) {
      assertThat(security).as("security.md shows how to create Secret %s", secret).contains(secret);
    }
  }

  @Test
  void secretChecksCatchAShippedValue() {
    List<Doc> docs = new ArrayList<>(loadAll());
    docs.add(
        doc(
            "apiVersion: v1\nkind: Secret\nmetadata: {name: x, namespace: amber-garden}\n"
                + "stringData: {cassandra-password: change-me}\n"));
    assertThat(secretProblems(docs)).anyMatch(p -> p.contains("cassandra-password"));
  }

  @Test
  void deploymentFollowsTheRestrictedProfileAndOutlivesTheShutdown() throws IOException {
    Duration shutdown = appShutdownGrace();
    assertThat(shutdown).isPositive();
    assertThat(deploymentProblems(fresh("Deployment").body(), shutdown)).isEmpty();
  }

  @Test
  void deploymentChecksCatchEachWeakening() {
    Duration shutdown = Duration.ofSeconds(30);
    expectDeploymentProblem(d -> map(d.get("spec")).put("replicas", 1), shutdown, "replicas");
    expectDeploymentProblem(
        d ->
            list(podSpec(d).get("topologySpreadConstraints"))
                .removeIf(c -> "topology.kubernetes.io/zone".equals(at(c, "topologyKey"))),
        shutdown,
        "topology.kubernetes.io/zone");
    expectDeploymentProblem(
        d ->
            list(podSpec(d).get("topologySpreadConstraints")).stream()
                .map(K8sManifestsTest::map)
                .filter(c -> "kubernetes.io/hostname".equals(c.get("topologyKey")))
                .forEach(c -> c.put("labelSelector", Map.of("matchLabels", Map.of("app", "x")))),
        shutdown,
        "kubernetes.io/hostname");
    expectDeploymentProblem(
        d -> podSpec(d).put("automountServiceAccountToken", true),
        shutdown,
        "automountServiceAccountToken");
    expectDeploymentProblem(
        d -> podSpec(d).remove("automountServiceAccountToken"),
        shutdown,
        "automountServiceAccountToken");
    expectDeploymentProblem(
        d -> map(podSpec(d).get("securityContext")).put("runAsNonRoot", false),
        shutdown,
        "runAsNonRoot");
    expectDeploymentProblem(
        d -> map(podSpec(d).get("securityContext")).remove("seccompProfile"),
        shutdown,
        "seccompProfile");
    expectDeploymentProblem(
        d ->
            map(map(podSpec(d).get("securityContext")).get("seccompProfile"))
                .put("type", "Unconfined"),
        shutdown,
        "seccompProfile");
    expectDeploymentProblem(
        d -> containerSecurity(d).put("allowPrivilegeEscalation", true),
        shutdown,
        "allowPrivilegeEscalation");
    expectDeploymentProblem(
        d -> containerSecurity(d).remove("readOnlyRootFilesystem"),
        shutdown,
        "readOnlyRootFilesystem");
    expectDeploymentProblem(
        d -> map(containerSecurity(d).get("capabilities")).put("drop", List.of("NET_RAW")),
        shutdown,
        "ALL");
    expectDeploymentProblem(
        d -> map(map(firstContainer(d).get("resources")).get("limits")).remove("memory"),
        shutdown,
        "limits.memory");
    expectDeploymentProblem(
        d -> map(map(firstContainer(d).get("resources")).get("requests")).remove("cpu"),
        shutdown,
        "requests.cpu");
    expectDeploymentProblem(
        d -> map(at(firstContainer(d), "livenessProbe", "httpGet")).put("path", "/health/ready"),
        shutdown,
        "livenessProbe");
    expectDeploymentProblem(
        d -> firstContainer(d).remove("readinessProbe"), shutdown, "readinessProbe");
    expectDeploymentProblem(
        d -> map(firstContainer(d).get("lifecycle")).remove("preStop"), shutdown, "preStop");
    expectDeploymentProblem(
        d -> list(firstContainer(d).get("volumeMounts")).clear(), shutdown, "/tmp");
    expectDeploymentProblem(
        d ->
            list(podSpec(d).get("volumes"))
                .set(0, Map.of("name", "tmp", "hostPath", Map.of("path", "/t"))),
        shutdown,
        "emptyDir");
    expectDeploymentProblem(
        d -> podSpec(d).remove("terminationGracePeriodSeconds"),
        shutdown,
        "terminationGracePeriodSeconds");
    expectDeploymentProblem(d -> {}, Duration.ofSeconds(300), "terminationGracePeriodSeconds");
  }

  @Test
  void shutdownDurationsParse() {
    assertThat(parseDuration("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(parseDuration("2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(parseDuration(" 1h ")).isEqualTo(Duration.ofHours(1));
    assertThatThrownBy(() -> parseDuration("30")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> parseDuration("thirty s"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void deploymentEnvironmentUsesOnlyKnownConfigKeysAndSecretRefs() {
    List<Doc> docs = loadAll();
    assertThat(envProblems(docs)).isEmpty();

    // and the application accepts that environment as a whole (values validated, unknown AMBER_*
    // rejected)
    Map<String, String> env = deploymentEnvironment(docs);
    assertThat(env)
        .containsKeys(
            "AMBER_CASSANDRA_CONTACT_POINTS",
            "AMBER_KAFKA_BOOTSTRAP_SERVERS",
            "AMBER_CASSANDRA_USERNAME",
            "AMBER_CASSANDRA_PASSWORD");
    AmberConfig config = ConfigLoader.load(env, new Properties(), Map.of());
    assertThat(config.ingest().mode()).isEqualTo(AmberConfig.IngestMode.KAFKA);
    assertThat(config.kafka().createTopics()).as("topics come from KafkaTopic resources").isFalse();
    assertThat(config.cassandra().replication()).startsWith("{'class': 'NetworkTopologyStrategy'");
  }

  @Test
  void deviceImagesUseAConfiguredObjectStoreWithKeysFromTheSecret() {
    List<Doc> docs = loadAll();
    Map<String, Object> c = firstContainer(find(docs, "Deployment").body());
    for (String name : List.of("AMBER_MEDIA_S3_ACCESS_KEY", "AMBER_MEDIA_S3_SECRET_KEY")) {
      Object e =
          list(c.get("env")).stream()
              .filter(x -> name.equals(str(at(x, "name"))))
              .findFirst()
              .orElse(null);
      assertThat(e).as(name).isNotNull();
      assertThat(at(e, "value")).as(name + " is never a literal").isNull();
      assertThat(str(at(e, "valueFrom", "secretKeyRef", "name")))
          .isEqualTo("amber-garden-credentials");
    }
    AmberConfig config = ConfigLoader.load(deploymentEnvironment(docs), new Properties(), Map.of());
    assertThat(config.media().s3Endpoint()).startsWith("https://");
    assertThat(config.media().s3CreateBucket())
        .as("the bucket is provisioned, not created")
        .isFalse();
    Set<String> egress = new TreeSet<>();
    for (Object rule : list(at(find(docs, "NetworkPolicy").body(), "spec", "egress"))) {
      list(at(rule, "ports")).forEach(port -> egress.add(String.valueOf(at(port, "port"))));
    }
    assertThat(egress).as("HTTPS to the object store").contains("443");
  }

  @Test
  void environmentChecksCatchUnknownNamesAndLiteralSecrets() {
    expectEnvProblem(
        docs ->
            env(docs)
                .add(
                    new LinkedHashMap<>(
                        Map.of("name", "AMBER_KAFKA_BOOTSTRAP_SERVER", "value", "x"))),
        "AMBER_KAFKA_BOOTSTRAP_SERVER");
    expectEnvProblem(
        docs ->
            env(docs).add(new LinkedHashMap<>(Map.of("name", "AMBER_LOCALRT_DIR", "value", "/x"))),
        "AMBER_LOCALRT_DIR");
    expectEnvProblem(docs -> configData(docs).put("AMBER_LOG_FROMAT", "json"), "AMBER_LOG_FROMAT");
    expectEnvProblem(
        docs ->
            env(docs).stream()
                .map(K8sManifestsTest::map)
                .filter(e -> e.get("name").equals("AMBER_CASSANDRA_PASSWORD"))
                .forEach(
                    e -> {
                      e.remove("valueFrom");
                      e.put("value", "hunter2");
                    }),
        "AMBER_CASSANDRA_PASSWORD");
    expectEnvProblem(
        docs -> configData(docs).put("AMBER_CASSANDRA_USERNAME", "amber"),
        "AMBER_CASSANDRA_USERNAME");
    expectEnvProblem(
        docs ->
            env(docs).stream()
                .map(K8sManifestsTest::map)
                .filter(e -> e.get("name").equals("AMBER_CASSANDRA_PASSWORD"))
                .forEach(
                    e -> map(at(e, "valueFrom", "secretKeyRef")).put("key", "cassandra-pasword")),
        "cassandra-pasword");
    expectEnvProblem(docs -> docs.removeIf(d -> d.kind().equals("ConfigMap")), "ConfigMap");
  }

  @Test
  void strimziAndK8ssandraResourcesMatchTheApplication() {
    List<Doc> docs = loadAll();
    assertThat(engineProblems(docs)).isEmpty();
    assertThat(docs)
        .filteredOn(d -> d.kind().equals("KafkaTopic"))
        .extracting(Doc::name)
        .contains("amber.events", "amber.events.dlq");
    assertThat(docs).filteredOn(d -> d.kind().equals("K8ssandraCluster")).isNotEmpty();
    assertThat(str(configData(docs).get("AMBER_CASSANDRA_REPLICATION")))
        .startsWith("NetworkTopologyStrategy");
  }

  @Test
  void engineChecksCatchMissingTopicsSettingsAndMismatches() {
    expectEngineProblem(
        docs ->
            docs.removeIf(
                d -> d.kind().equals("KafkaTopic") && d.name().equals("amber.events.dlq")),
        "amber.events.dlq");
    expectEngineProblem(
        docs -> map(topic(docs, "amber.events").get("spec")).remove("partitions"), "partitions");
    expectEngineProblem(
        docs -> map(at(topic(docs, "amber.events.dlq"), "spec", "config")).remove("retention.ms"),
        "retention.ms");
    expectEngineProblem(
        docs ->
            map(at(topic(docs, "amber.events.dlq"), "spec", "config"))
                .put("retention.ms", 3_600_000),
        "DLQ retention");
    expectEngineProblem(
        docs ->
            map(map(topic(docs, "amber.events").get("metadata")).get("labels"))
                .put("strimzi.io/cluster", "other"),
        "strimzi.io/cluster");
    expectEngineProblem(
        docs -> map(topic(docs, "amber.events").get("spec")).put("replicas", 5), "replicas");
    expectEngineProblem(
        Kustomize.PRODUCTION_KEDA,
        docs -> map(find(docs, "ScaledObject").body().get("spec")).put("maxReplicaCount", 30),
        "maxReplicas");
    expectEngineProblem(
        docs ->
            map(at(find(docs, "K8ssandraCluster").body(), "spec", "cassandra"))
                .put("serverVersion", "5.0.2"),
        "serverVersion");
    expectEngineProblem(
        docs -> map(find(docs, "Kafka").body().get("spec")).put("zookeeper", Map.of("replicas", 3)),
        "zookeeper");
    expectEngineProblem(
        docs ->
            list(at(find(docs, "KafkaUser").body(), "spec", "authorization", "acls")).stream()
                .map(K8sManifestsTest::map)
                .forEach(
                    acl -> {
                      acl.remove("operations");
                      acl.put("operation", "Read");
                    }),
        "operations list");
    expectEngineProblem(
        docs -> docs.removeIf(d -> d.kind().equals("K8ssandraCluster")), "K8ssandraCluster");
    expectEngineProblem(docs -> docs.removeIf(d -> d.kind().equals("KafkaUser")), "KafkaUser");
    expectEngineProblem(
        docs ->
            list(at(find(docs, "KafkaUser").body(), "spec", "authorization", "acls"))
                .removeIf(acl -> "amber.events.dlq".equals(at(acl, "resource", "name"))),
        "amber.events.dlq");
    expectEngineProblem(
        docs ->
            map(list(at(find(docs, "Kafka").body(), "spec", "kafka", "listeners")).get(0))
                .remove("authentication"),
        "scram-sha-512");
    expectEngineProblem(
        docs -> configData(docs).put("AMBER_KAFKA_SECURITY_PROTOCOL", "PLAINTEXT"), "SASL_SSL");
    expectEngineProblem(
        docs -> configData(docs).put("AMBER_CASSANDRA_REPLICATION", "SimpleStrategy:3"),
        "NetworkTopologyStrategy");
    expectEngineProblem(
        docs ->
            configData(docs).put("AMBER_CASSANDRA_REPLICATION", "NetworkTopologyStrategy:dc2=3"),
        "dc2");
    expectEngineProblem(
        docs ->
            configData(docs).put("AMBER_CASSANDRA_REPLICATION", "NetworkTopologyStrategy:dc1=5"),
        "size");
    expectEngineProblem(
        docs -> configData(docs).put("AMBER_CASSANDRA_LOCAL_DATACENTER", "datacenter1"),
        "datacenter1");
    expectEngineProblem(
        docs -> configData(docs).put("AMBER_KAFKA_BOOTSTRAP_SERVERS", "kafka:9092"),
        "AMBER_KAFKA_BOOTSTRAP_SERVERS");
    expectEngineProblem(
        docs -> configData(docs).put("AMBER_CASSANDRA_CONTACT_POINTS", "cassandra:9042"),
        "AMBER_CASSANDRA_CONTACT_POINTS");
  }

  @Test
  void serviceHpaPdbAndNetworkPolicySelectTheDeploymentsPods() {
    assertThat(selectionProblems(loadAll())).isEmpty();
  }

  @Test
  void selectionChecksCatchMismatchesAndMissingObjects() {
    expectSelectionProblem(
        docs ->
            map(find(docs, "Service").body().get("spec")).put("selector", Map.of("app", "other")),
        "Service");
    expectSelectionProblem(
        docs -> map(find(docs, "Service").body().get("spec")).put("selector", Map.of()), "Service");
    expectSelectionProblem(
        docs ->
            map(at(find(docs, "PodDisruptionBudget").body(), "spec", "selector"))
                .put("matchLabels", Map.of("app.kubernetes.io/name", "amber")),
        "PodDisruptionBudget");
    expectSelectionProblem(
        docs ->
            map(at(find(docs, "NetworkPolicy").body(), "spec", "podSelector"))
                .put("matchLabels", Map.of("tier", "web")),
        "NetworkPolicy");
    expectSelectionProblem(
        Kustomize.PRODUCTION_KEDA,
        docs ->
            map(at(find(docs, "ScaledObject").body(), "spec", "scaleTargetRef"))
                .put("name", "amber"),
        "ScaledObject");
    expectSelectionProblem(
        Kustomize.PRODUCTION_KEDA,
        docs -> map(find(docs, "ScaledObject").body().get("spec")).put("minReplicaCount", 1),
        "minReplicas");
    expectSelectionProblem(
        Kustomize.PRODUCTION_KEDA,
        docs -> map(find(docs, "Deployment").body().get("spec")).put("replicas", 4),
        "reset");
    expectSelectionProblem(
        docs -> map(find(docs, "Deployment").body().get("spec")).remove("replicas"),
        "neither spec.replicas nor an autoscaler");
    expectSelectionProblem(
        docs -> map(find(docs, "PodDisruptionBudget").body().get("spec")).put("minAvailable", 2),
        "minAvailable");
    expectSelectionProblem(
        docs -> map(find(docs, "PodDisruptionBudget").body().get("spec")).put("maxUnavailable", 3),
        "maxUnavailable: 1");
    expectSelectionProblem(
        docs -> docs.removeIf(d -> d.kind().equals("NetworkPolicy")), "NetworkPolicy");
    expectSelectionProblem(
        docs -> docs.removeIf(d -> d.kind().equals("PodDisruptionBudget")), "PodDisruptionBudget");
    expectSelectionProblem(
        docs ->
            list(at(find(docs, "Service").body(), "spec", "ports"))
                .set(0, Map.of("name", "http", "port", 80, "targetPort", "web")),
        "targetPort");
    expectSelectionProblem(
        docs -> map(find(docs, "Deployment").body().get("metadata")).put("namespace", "default"),
        "namespace");
    expectSelectionProblem(
        docs -> list(at(find(docs, "NetworkPolicy").body(), "spec", "egress")).remove(0), "9042");
  }

  @Test
  void theApiIsServedOverTlsOnlyAndAdmittedFromTheIngressControllerOnly() {
    assertThat(transportProblems(loadAll())).isEmpty();
  }

  @Test
  void transportChecksCatchEachWayBackToPlainHttp() {
    expectTransportProblem(
        docs -> env(docs).removeIf(e -> str(at(e, "name")).startsWith("AMBER_HTTP_TLS_")),
        "without TLS");
    expectTransportProblem(
        docs ->
            map(firstContainer(find(docs, "Deployment").body()).get("readinessProbe"))
                .put("httpGet", Map.of("path", "/health/ready", "port", "https")),
        "readinessProbe");
    expectTransportProblem(
        docs ->
            list(firstContainer(find(docs, "Deployment").body()).get("volumeMounts")).stream()
                .filter(m -> "/etc/amber/tls".equals(at(m, "mountPath")))
                .forEach(m -> map(m).put("subPath", "tls.crt")),
        "subPath");
    expectTransportProblem(
        docs ->
            map(at(certificate(docs, "amber-garden-serving"), "spec", "privateKey"))
                .remove("encoding"),
        "PKCS8");
    expectTransportProblem(
        docs ->
            list(at(find(docs, "Service").body(), "spec", "ports"))
                .set(0, Map.of("name", "http", "port", 80, "targetPort", "https")),
        "Service");
    expectTransportProblem(docs -> docs.removeIf(d -> d.kind().equals("Ingress")), "Ingress");
    expectTransportProblem(
        docs -> map(find(docs, "Ingress").body().get("spec")).remove("tls"), "spec.tls");
    expectTransportProblem(
        docs ->
            map(at(find(docs, "Ingress").body(), "metadata", "annotations"))
                .remove("cert-manager.io/cluster-issuer"),
        "cert-manager");
    expectTransportProblem(
        docs ->
            map(at(find(docs, "Ingress").body(), "metadata", "annotations"))
                .remove(NGINX + "backend-protocol"),
        "backend-protocol");
    expectTransportProblem(
        docs ->
            map(at(find(docs, "Ingress").body(), "metadata", "annotations"))
                .put(NGINX + "proxy-ssl-verify", "off"),
        "proxy-ssl-verify");
    expectTransportProblem(
        docs ->
            map(at(find(docs, "Ingress").body(), "metadata", "annotations"))
                .put(NGINX + "proxy-body-size", "1m"),
        "proxy-body-size");
    expectTransportProblem(
        docs ->
            map(list(at(find(docs, "Ingress").body(), "spec", "rules")).get(0))
                .put("host", "api.example.org"),
        "host");
    expectTransportProblem(
        docs ->
            map(list(at(find(docs, "NetworkPolicy").body(), "spec", "ingress")).get(0))
                .remove("from"),
        "from anywhere");
    expectTransportProblem(
        docs ->
            list(at(find(docs, "NetworkPolicy").body(), "spec", "ingress"))
                .add(0, Map.of("from", List.of(Map.of("ipBlock", Map.of("cidr", "0.0.0.0/0"))))),
        INGRESS_CONTROLLER_NAMESPACE);
  }

  @Test
  void everyMountedFileAWorkloadIsConfiguredWithIsMountedInIt() {
    expectEnvProblem(
        docs ->
            list(firstContainer(find(docs, "Deployment").body()).get("volumeMounts"))
                .removeIf(m -> "/etc/amber/tls".equals(at(m, "mountPath"))),
        "/etc/amber/tls/tls.crt");
  }

  @Test
  void theKubernetesGuideNamesEveryFileUnderK8s() throws IOException {
    String guide = Files.readString(KUBERNETES_GUIDE);
    try (Stream<Path> files = Files.walk(K8S)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        String name = K8S.relativize(f).toString();
        assertThat(guide).as("%s names %s", KUBERNETES_GUIDE, name).contains("`" + name + "`");
      }
    }
  }

  // ================================================== checks
  // ==================================================

  static List<String> structureProblems(Doc d) {
    List<String> out = new ArrayList<>();
    Map<String, Object> b = d.body();
    if (!(b.get("apiVersion") instanceof String)) {
      out.add("apiVersion missing or not a string");
    }
    if (!(b.get("kind") instanceof String)) {
      out.add("kind missing or not a string");
    }
    if (!(b.get("metadata") instanceof Map<?, ?> md)
        || !(md.get("name") instanceof String n)
        || n.isBlank()) {
      out.add("metadata.name missing");
      return out;
    }
    if (!out.isEmpty()) {
      return out;
    }
    String kind = d.kind();
    if (!KNOWN_KINDS.contains(d.apiVersion() + "/" + kind)) {
      out.add("unknown kind " + d.apiVersion() + "/" + kind);
      return out;
    }
    unknownFields(out, "metadata", b.get("metadata"), METADATA_FIELDS);
    if (TOP_LEVEL_FIELDS.containsKey(kind)) {
      unknownFields(out, "", b, TOP_LEVEL_FIELDS.get(kind));
    } else if (SPEC_FIELDS.containsKey(kind)) {
      unknownFields(out, "", b, OBJECT_FIELDS);
      unknownFields(out, "spec", b.get("spec"), SPEC_FIELDS.get(kind));
    } else if (!(b.get("spec") instanceof Map)) {
      out.add("custom resource without a spec mapping");
    }
    if (kind.equals("Deployment") || kind.equals("Job")) {
      unknownFields(out, "spec.template", at(b, "spec", "template"), POD_TEMPLATE_FIELDS);
      Object pod = at(b, "spec", "template", "spec");
      unknownFields(out, "pod spec", pod, POD_SPEC_FIELDS);
      unknownFields(out, "pod securityContext", at(pod, "securityContext"), POD_SECURITY_FIELDS);
      for (String group : List.of("containers", "initContainers")) {
        for (Object c : list(at(pod, group))) {
          String where = group + "[" + at(c, "name") + "]";
          unknownFields(out, where, c, CONTAINER_FIELDS);
          unknownFields(
              out, where + ".securityContext", at(c, "securityContext"), CONTAINER_SECURITY_FIELDS);
          for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
            unknownFields(out, where + "." + probe, at(c, probe), PROBE_FIELDS);
          }
          unknownFields(out, where + ".lifecycle", at(c, "lifecycle"), LIFECYCLE_FIELDS);
          for (String hook : LIFECYCLE_FIELDS) {
            unknownFields(
                out, where + ".lifecycle." + hook, at(c, "lifecycle", hook), HANDLER_FIELDS);
          }
        }
      }
    }
    return out;
  }

  static List<String> deploymentProblems(Map<String, Object> dep, Duration shutdownGrace) {
    List<String> out = new ArrayList<>();
    // absent when an autoscaler drives the replicas (selectionProblems checks there is one)
    Object replicas = at(dep, "spec", "replicas");
    if (replicas != null && (!(replicas instanceof Number r) || r.intValue() < 2)) {
      out.add("spec.replicas must be at least 2, is " + replicas);
    }
    Map<String, Object> pod = map(at(dep, "spec", "template", "spec"));
    Map<String, Object> podLabels = map(at(dep, "spec", "template", "metadata", "labels"));
    for (String key : List.of("topology.kubernetes.io/zone", "kubernetes.io/hostname")) {
      boolean spread =
          list(pod.get("topologySpreadConstraints")).stream()
              .anyMatch(
                  c ->
                      key.equals(at(c, "topologyKey"))
                          && Integer.valueOf(1).equals(at(c, "maxSkew"))
                          && selects(at(c, "labelSelector", "matchLabels"), podLabels));
      if (!spread) {
        out.add("topologySpreadConstraints must spread the pods by " + key + " with maxSkew 1");
      }
    }
    if (!Boolean.FALSE.equals(pod.get("automountServiceAccountToken"))) {
      out.add("automountServiceAccountToken must be false");
    }
    if (!Boolean.TRUE.equals(at(pod, "securityContext", "runAsNonRoot"))) {
      out.add("pod securityContext.runAsNonRoot must be true");
    }
    if (!"RuntimeDefault".equals(at(pod, "securityContext", "seccompProfile", "type"))) {
      out.add("pod securityContext.seccompProfile.type must be RuntimeDefault");
    }
    Set<String> emptyDirs =
        list(pod.get("volumes")).stream()
            .filter(v -> map(v).get("emptyDir") instanceof Map)
            .map(v -> str(at(v, "name")))
            .collect(Collectors.toSet());
    List<Object> containers = list(pod.get("containers"));
    if (containers.isEmpty()) {
      out.add("no containers");
    }
    long longestPreStopSleep = 0;
    for (Object c : containers) {
      String n = "container " + at(c, "name") + ": ";
      if (!Boolean.FALSE.equals(at(c, "securityContext", "allowPrivilegeEscalation"))) {
        out.add(n + "allowPrivilegeEscalation must be false");
      }
      if (!Boolean.TRUE.equals(at(c, "securityContext", "readOnlyRootFilesystem"))) {
        out.add(n + "readOnlyRootFilesystem must be true");
      }
      if (!list(at(c, "securityContext", "capabilities", "drop")).contains("ALL")) {
        out.add(n + "capabilities.drop must contain ALL");
      }
      for (String bound : List.of("requests", "limits")) {
        for (String resource : List.of("cpu", "memory")) {
          Object v = at(c, "resources", bound, resource);
          if (v == null || v.toString().isBlank()) {
            out.add(n + "resources." + bound + "." + resource + " must be set");
          }
        }
      }
      if (!"/health/live".equals(at(c, "livenessProbe", "httpGet", "path"))) {
        out.add(n + "livenessProbe must GET /health/live");
      }
      if (!"/health/ready".equals(at(c, "readinessProbe", "httpGet", "path"))) {
        out.add(n + "readinessProbe must GET /health/ready");
      }
      Object preStop = at(c, "lifecycle", "preStop");
      if (!(preStop instanceof Map<?, ?> p) || p.isEmpty()) {
        out.add(n + "lifecycle.preStop must be set");
      } else if (at(preStop, "sleep", "seconds") instanceof Number s) {
        longestPreStopSleep = Math.max(longestPreStopSleep, s.longValue());
      }
      boolean tmp =
          list(at(c, "volumeMounts")).stream()
              .anyMatch(
                  m -> "/tmp".equals(at(m, "mountPath")) && emptyDirs.contains(str(at(m, "name"))));
      if (!tmp) {
        out.add(n + "needs an emptyDir volume mounted at /tmp (root filesystem is read-only)");
      }
    }
    if (!(pod.get("terminationGracePeriodSeconds") instanceof Number grace)) {
      out.add("terminationGracePeriodSeconds must be set");
    } else {
      // the kubelet counts the preStop hook against the grace period; SIGTERM only comes after it
      long needed = shutdownGrace.toSeconds() + longestPreStopSleep;
      if (grace.longValue() <= needed) {
        out.add(
            "terminationGracePeriodSeconds "
                + grace
                + " must exceed the app's shutdown grace "
                + shutdownGrace
                + " plus the preStop sleep "
                + longestPreStopSleep
                + "s");
      }
    }
    return out;
  }

  static List<String> secretProblems(List<Doc> docs) {
    List<String> out = new ArrayList<>();
    for (Doc d : docs) {
      if (d.kind().equals("Secret")) {
        Set<String> keys = new TreeSet<>();
        keys.addAll(map(d.body().get("data")).keySet());
        keys.addAll(map(d.body().get("stringData")).keySet());
        if (!keys.isEmpty()) {
          out.add(
              d.where()
                  + " ships values for "
                  + keys
                  + "; create it out of band (docs/operations/security.md)");
        }
      }
    }
    return out;
  }

  static List<String> envProblems(List<Doc> docs) {
    return envProblems(docs, find(docs, "Deployment"));
  }

  /** The environment checks for the containers of one workload (the Deployment, the schema Job). */
  static List<String> envProblems(List<Doc> docs, Doc workload) {
    List<String> out = new ArrayList<>();
    Set<String> allowed = new TreeSet<>();
    ConfigLoader.defaults().keySet().forEach(k -> allowed.add(ConfigLoader.envName(k)));
    allowed.add("JAVA_TOOL_OPTIONS");
    Map<String, Map<String, Object>> secrets = new HashMap<>();
    EXTERNAL_SECRETS.forEach(
        (name, keys) -> {
          Map<String, Object> m = new LinkedHashMap<>();
          keys.forEach(k -> m.put(k, "external"));
          secrets.put(name, m);
        });
    for (Doc d : docs) {
      if (d.kind().equals("Certificate")) {
        // cert-manager writes these keys (ca.crt from a CA issuer)
        Map<String, Object> keys = new LinkedHashMap<>();
        List.of("tls.crt", "tls.key", "ca.crt").forEach(k -> keys.put(k, "cert-manager"));
        secrets.put(str(at(d.body(), "spec", "secretName")), keys);
      }
      if (d.kind().equals("Secret")) {
        Map<String, Object> keys = new LinkedHashMap<>();
        keys.putAll(map(d.body().getOrDefault("data", Map.of())));
        keys.putAll(map(d.body().getOrDefault("stringData", Map.of())));
        secrets.put(d.name(), keys);
      }
    }
    List<Object> everyContainer = new ArrayList<>();
    everyContainer.addAll(list(at(workload.body(), "spec", "template", "spec", "initContainers")));
    everyContainer.addAll(list(at(workload.body(), "spec", "template", "spec", "containers")));
    for (Object v : list(at(workload.body(), "spec", "template", "spec", "volumes"))) {
      if (at(v, "secret") != null) {
        String secret = str(at(v, "secret", "secretName"));
        if (!secrets.containsKey(secret)) {
          out.add(
              "volume " + at(v, "name") + " mounts Secret " + secret + ", which nothing declares");
        }
        for (Object item : list(at(v, "secret", "items"))) {
          if (secrets.containsKey(secret)
              && !secrets.get(secret).containsKey(str(at(item, "key")))) {
            out.add("volume " + at(v, "name") + " mounts key " + at(item, "key") + " of " + secret);
          }
        }
      }
    }
    Map<String, String> raw = rawEnvironment(docs, workload);
    List<String> mounts =
        list(firstContainer(workload.body()).get("volumeMounts")).stream()
            .map(m -> str(at(m, "mountPath")))
            .toList();
    raw.forEach(
        (name, file) -> {
          if (isFileSetting(name)
              && !file.isEmpty()
              && mounts.stream().noneMatch(m -> file.startsWith(m + "/"))) {
            out.add(name + "=" + file + " lies under no volume the container mounts");
          }
        });
    for (Object c : everyContainer) {
      String n = "container " + at(c, "name") + ": ";
      for (Object e : list(at(c, "env"))) {
        String name = str(at(e, "name"));
        if (!allowed.contains(name)) {
          out.add(n + "env " + name + " is not a known config variable");
        }
        Object secretRef = at(e, "valueFrom", "secretKeyRef");
        if (isSecretName(name)) {
          if (at(e, "value") != null || !(secretRef instanceof Map)) {
            out.add(n + "env " + name + " must come from a secretKeyRef, not a literal value");
          }
        }
        if (secretRef instanceof Map) {
          String secret = str(at(secretRef, "name"));
          String key = str(at(secretRef, "key"));
          if (!secrets.containsKey(secret)) {
            out.add(
                n + "env " + name + " refers to Secret " + secret + ", which no manifest declares");
          } else if (!secrets.get(secret).containsKey(key)) {
            out.add(
                n
                    + "env "
                    + name
                    + " refers to key "
                    + key
                    + ", which Secret "
                    + secret
                    + " lacks");
          }
        }
      }
      for (Object from : list(at(c, "envFrom"))) {
        String prefix = Objects.toString(at(from, "prefix"), "");
        if (at(from, "configMapRef") != null) {
          String cm = str(at(from, "configMapRef", "name"));
          Doc config = declared(docs, "ConfigMap", cm);
          if (config == null) {
            out.add(n + "envFrom ConfigMap " + cm + " is not declared");
            continue;
          }
          for (Map.Entry<String, Object> kv :
              map(config.body().getOrDefault("data", Map.of())).entrySet()) {
            String name = prefix + kv.getKey();
            if (!allowed.contains(name)) {
              out.add(n + "ConfigMap " + cm + " key " + name + " is not a known config variable");
            }
            if (isSecretName(name)) {
              out.add(n + "ConfigMap " + cm + " holds " + name + " in clear; use a secretKeyRef");
            }
          }
        } else {
          out.add(
              n
                  + "envFrom other than configMapRef ("
                  + from
                  + ") is not checked; reference secrets one key at a time");
        }
      }
    }
    return out;
  }

  static List<String> engineProblems(List<Doc> docs) {
    List<String> out = new ArrayList<>();
    Properties props = appProperties();
    Map<String, Doc> topics = new LinkedHashMap<>();
    docs.stream().filter(d -> d.kind().equals("KafkaTopic")).forEach(d -> topics.put(d.name(), d));
    Doc kafka = docs.stream().filter(d -> d.kind().equals("Kafka")).findFirst().orElse(null);
    if (kafka == null) {
      out.add("no Kafka resource");
      return out;
    }
    int brokers =
        docs.stream()
            .filter(d -> d.kind().equals("KafkaNodePool"))
            .filter(
                d -> kafka.name().equals(at(d.body(), "metadata", "labels", "strimzi.io/cluster")))
            .filter(d -> list(at(d.body(), "spec", "roles")).contains("broker"))
            .mapToInt(d -> at(d.body(), "spec", "replicas") instanceof Number r ? r.intValue() : 0)
            .sum();
    if (brokers == 0) {
      out.add("no KafkaNodePool with the broker role for Kafka " + kafka.name());
    }
    long eventsRetention = -1;
    for (String topicKey : List.of("kafka.topic", "kafka.dlq-topic")) {
      String name = props.getProperty(topicKey);
      Doc t = topics.get(name);
      if (t == null) {
        out.add("no KafkaTopic " + name + " (" + topicKey + ")");
        continue;
      }
      Map<String, Object> spec = map(t.body().get("spec"));
      if (!kafka.name().equals(at(t.body(), "metadata", "labels", "strimzi.io/cluster"))) {
        out.add("KafkaTopic " + name + " label strimzi.io/cluster must name Kafka " + kafka.name());
      }
      if (!Objects.equals(
          at(t.body(), "metadata", "namespace"), at(kafka.body(), "metadata", "namespace"))) {
        out.add("KafkaTopic " + name + " must be in the namespace of Kafka " + kafka.name());
      }
      if (!(spec.get("partitions") instanceof Number p) || p.intValue() < 1) {
        out.add("KafkaTopic " + name + " needs spec.partitions");
      }
      if (!(spec.get("replicas") instanceof Number r)
          || r.intValue() < 1
          || r.intValue() > brokers) {
        out.add(
            "KafkaTopic "
                + name
                + " spec.replicas must be between 1 and the "
                + brokers
                + " brokers");
      } else if (at(spec, "config", "min.insync.replicas") instanceof Number isr
          && isr.intValue() >= r.intValue()) {
        out.add(
            "KafkaTopic "
                + name
                + " min.insync.replicas must be below its replicas, or one broker down stops writes");
      }
      if (!(at(spec, "config", "retention.ms") instanceof Number retention)
          || retention.longValue() <= 0) {
        out.add("KafkaTopic " + name + " needs config retention.ms");
      } else if (topicKey.equals("kafka.topic")) {
        eventsRetention = retention.longValue();
      } else if (eventsRetention > 0 && retention.longValue() < eventsRetention) {
        out.add(
            "DLQ retention "
                + retention
                + " is shorter than the events topic's "
                + eventsRetention);
      }
    }
    Doc events = topics.get(props.getProperty("kafka.topic"));
    for (Doc scaler : autoscalers(docs)) {
      if (events != null
          && at(events.body(), "spec", "partitions") instanceof Number p
          && maxReplicas(scaler) > p.intValue()) {
        out.add(
            scaler.kind()
                + " "
                + scaler.name()
                + " maxReplicas "
                + maxReplicas(scaler)
                + " exceeds the "
                + p
                + " partitions of "
                + events.name()
                + "; the extra consumers would sit idle");
      }
    }
    // fields Strimzi's v1 API no longer has (ZooKeeper, single-operation ACLs)
    if (at(kafka.body(), "spec", "zookeeper") != null) {
      out.add("Kafka " + kafka.name() + " has spec.zookeeper, which the v1 API does not have");
    }

    Map<String, Object> data = configData(docs);
    List<Object> listeners = list(at(kafka.body(), "spec", "kafka", "listeners"));
    if (listeners.stream()
        .anyMatch(
            l ->
                !Boolean.TRUE.equals(at(l, "tls"))
                    || !"scram-sha-512".equals(at(l, "authentication", "type")))) {
      out.add("every Kafka listener must use tls: true and authentication scram-sha-512");
    }
    if (!"simple".equals(at(kafka.body(), "spec", "kafka", "authorization", "type"))) {
      out.add("Kafka " + kafka.name() + " needs authorization type simple (ACLs)");
    }
    String listenerPort =
        listeners.stream()
            .filter(l -> Boolean.TRUE.equals(at(l, "tls")))
            .map(l -> String.valueOf(at(l, "port")))
            .findFirst()
            .orElse("?");
    String bootstrap =
        kafka.name()
            + "-kafka-bootstrap."
            + at(kafka.body(), "metadata", "namespace")
            + ".svc:"
            + listenerPort;
    if (!bootstrap.equals(data.get("AMBER_KAFKA_BOOTSTRAP_SERVERS"))) {
      out.add(
          "AMBER_KAFKA_BOOTSTRAP_SERVERS must be "
              + bootstrap
              + " (the Strimzi bootstrap service of the TLS listener)");
    }
    if (!"SASL_SSL".equals(data.get("AMBER_KAFKA_SECURITY_PROTOCOL"))
        || !"SCRAM-SHA-512".equals(data.get("AMBER_KAFKA_SASL_MECHANISM"))) {
      out.add("the ConfigMap must set AMBER_KAFKA_SECURITY_PROTOCOL SASL_SSL with SCRAM-SHA-512");
    }
    Doc user =
        docs.stream()
            .filter(d -> d.kind().equals("KafkaUser"))
            .filter(
                d -> kafka.name().equals(at(d.body(), "metadata", "labels", "strimzi.io/cluster")))
            .findFirst()
            .orElse(null);
    if (user == null) {
      out.add("no KafkaUser of Kafka " + kafka.name());
    } else {
      if (!"scram-sha-512".equals(at(user.body(), "spec", "authentication", "type"))) {
        out.add("KafkaUser " + user.name() + " must authenticate with scram-sha-512");
      }
      Map<String, Set<String>> granted = new HashMap<>();
      for (Object acl : list(at(user.body(), "spec", "authorization", "acls"))) {
        if (at(acl, "operation") != null || !(at(acl, "operations") instanceof List)) {
          out.add(
              "KafkaUser "
                  + user.name()
                  + " ACL "
                  + at(acl, "resource", "name")
                  + " needs an operations list (v1 has no operation field)");
        }
        String resource = at(acl, "resource", "type") + " " + at(acl, "resource", "name");
        for (Object op : list(at(acl, "operations"))) {
          granted.computeIfAbsent(resource, k -> new TreeSet<>()).add(String.valueOf(op));
        }
      }
      NEEDED_ACLS.forEach(
          (resource, ops) -> {
            if (!granted.getOrDefault(resource, Set.of()).containsAll(ops)) {
              out.add("KafkaUser " + user.name() + " lacks " + ops + " on " + resource);
            }
          });
    }

    Doc cassandra =
        docs.stream().filter(d -> d.kind().equals("K8ssandraCluster")).findFirst().orElse(null);
    if (cassandra == null) {
      out.add("no K8ssandraCluster resource");
      return out;
    }
    String version = localCassandraVersion();
    if (!version.equals(at(cassandra.body(), "spec", "cassandra", "serverVersion"))) {
      out.add(
          "K8ssandraCluster "
              + cassandra.name()
              + " serverVersion must be "
              + version
              + ", the Cassandra the tests run, is "
              + at(cassandra.body(), "spec", "cassandra", "serverVersion"));
    }
    Map<String, Integer> dcSizes = new LinkedHashMap<>();
    for (Object dc : list(at(cassandra.body(), "spec", "cassandra", "datacenters"))) {
      dcSizes.put(
          str(at(dc, "metadata", "name")), at(dc, "size") instanceof Number s ? s.intValue() : 0);
    }
    String replication = str(data.get("AMBER_CASSANDRA_REPLICATION"));
    if (!replication.startsWith("NetworkTopologyStrategy:")) {
      out.add(
          "AMBER_CASSANDRA_REPLICATION must start with NetworkTopologyStrategy, is " + replication);
    } else {
      for (String part : replication.substring("NetworkTopologyStrategy:".length()).split(",")) {
        String[] dcRf = part.trim().split("=");
        Integer size = dcSizes.get(dcRf[0]);
        if (size == null) {
          out.add(
              "replication names datacenter "
                  + dcRf[0]
                  + ", which K8ssandraCluster "
                  + cassandra.name()
                  + " lacks");
        } else if (dcRf.length != 2 || Integer.parseInt(dcRf[1]) > size) {
          out.add(
              "replication " + part + " exceeds the size " + size + " of datacenter " + dcRf[0]);
        }
      }
    }
    String localDc = str(data.get("AMBER_CASSANDRA_LOCAL_DATACENTER"));
    if (!dcSizes.containsKey(localDc)) {
      out.add(
          "AMBER_CASSANDRA_LOCAL_DATACENTER "
              + localDc
              + " is not a datacenter of "
              + cassandra.name()
              + ": "
              + dcSizes.keySet());
    } else {
      // cass-operator names the CQL service <cluster>-<dc>-service
      String service =
          cassandra.name()
              + "-"
              + localDc
              + "-service."
              + at(cassandra.body(), "metadata", "namespace")
              + ".svc:9042";
      if (!service.equals(data.get("AMBER_CASSANDRA_CONTACT_POINTS"))) {
        out.add("AMBER_CASSANDRA_CONTACT_POINTS must be " + service);
      }
    }
    return out;
  }

  /**
   * Bearer credentials never cross a network in plain text: the pods serve the API over TLS with a
   * certificate from a cert-manager Certificate, the probes speak HTTPS, the Service has no plain
   * port, clients come through a TLS Ingress whose certificate cert-manager obtains and which
   * verifies the pods, and the NetworkPolicy admits the API port from the ingress controller only.
   */
  static List<String> transportProblems(List<Doc> docs) {
    List<String> out = new ArrayList<>();
    Doc dep = find(docs, "Deployment");
    String ns = str(at(dep.body(), "metadata", "namespace"));
    Map<String, String> env = rawEnvironment(docs, dep);
    Map<String, Object> container = firstContainer(dep.body());
    Map<String, Map<String, Object>> certificates = new LinkedHashMap<>();
    for (Doc d : docs) {
      if (d.kind().equals("Certificate")) {
        certificates.put(str(at(d.body(), "spec", "secretName")), d.body());
      }
    }

    // the pods' own TLS
    String certFile = env.getOrDefault("AMBER_HTTP_TLS_CERT_FILE", "");
    String keyFile = env.getOrDefault("AMBER_HTTP_TLS_KEY_FILE", "");
    Map<String, Object> servingCertificate = null;
    if (certFile.isEmpty() || keyFile.isEmpty()) {
      out.add(
          "the API is served without TLS: the Deployment must set AMBER_HTTP_TLS_CERT_FILE and"
              + " AMBER_HTTP_TLS_KEY_FILE");
    } else {
      Map<String, String> secretVolumes = new HashMap<>();
      for (Object v : list(at(dep.body(), "spec", "template", "spec", "volumes"))) {
        if (at(v, "secret", "secretName") != null) {
          secretVolumes.put(str(at(v, "name")), str(at(v, "secret", "secretName")));
        }
      }
      for (String file : List.of(certFile, keyFile)) {
        Object mount =
            list(container.get("volumeMounts")).stream()
                .filter(m -> file.startsWith(str(at(m, "mountPath")) + "/"))
                .findFirst()
                .orElse(null);
        String secret = mount == null ? null : secretVolumes.get(str(at(mount, "name")));
        if (secret == null || !certificates.containsKey(secret)) {
          out.add(file + " must come from the Secret of a cert-manager Certificate, mounted");
        } else if (at(mount, "subPath") != null) {
          out.add(file + " is mounted with a subPath: a renewed certificate would never reach it");
        } else {
          servingCertificate = certificates.get(secret);
        }
      }
      if (servingCertificate != null
          && !"PKCS8".equals(at(servingCertificate, "spec", "privateKey", "encoding"))) {
        out.add(
            "Certificate "
                + at(servingCertificate, "metadata", "name")
                + " needs privateKey.encoding PKCS8 (http.tls.key-file takes PKCS#8 only)");
      }
    }
    for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
      if (at(container, probe, "httpGet") != null
          && !"HTTPS".equals(at(container, probe, "httpGet", "scheme"))) {
        out.add(probe + " must use scheme HTTPS: the pod serves TLS only");
      }
    }

    // the Service: no plain-HTTP port
    Doc service = find(docs, "Service");
    Set<String> servicePorts = new TreeSet<>();
    for (Object p : list(at(service.body(), "spec", "ports"))) {
      servicePorts.add(str(at(p, "name")));
      if (!"https".equals(at(p, "name")) || !Integer.valueOf(443).equals(at(p, "port"))) {
        out.add("Service " + service.name() + " port " + p + " must be https on 443: it is TLS");
      }
    }

    // the Ingress
    List<Doc> ingresses = docs.stream().filter(d -> d.kind().equals("Ingress")).toList();
    if (ingresses.isEmpty()) {
      out.add("no Ingress: clients need a TLS way in");
    }
    List<String> dnsNames =
        servingCertificate == null
            ? List.of()
            : list(at(servingCertificate, "spec", "dnsNames")).stream()
                .map(K8sManifestsTest::str)
                .toList();
    String serviceDns = service.name() + "." + ns + ".svc";
    if (servingCertificate != null && !dnsNames.contains(serviceDns)) {
      out.add("the serving Certificate must name " + serviceDns + " (the ingress verifies it)");
    }
    String publicUrl = env.getOrDefault("AMBER_MEDIA_PUBLIC_BASE_URL", "");
    long largestBody = largestBody(docs);
    for (Doc ing : ingresses) {
      String n = "Ingress " + ing.name() + ": ";
      Map<String, Object> notes = map(at(ing.body(), "metadata", "annotations"));
      Set<String> tlsHosts = new TreeSet<>();
      for (Object t : list(at(ing.body(), "spec", "tls"))) {
        if (str(at(t, "secretName")).isBlank()) {
          out.add(n + "spec.tls entry without a secretName");
        }
        list(at(t, "hosts")).forEach(h -> tlsHosts.add(str(h)));
      }
      if (tlsHosts.isEmpty()) {
        out.add(n + "spec.tls must name the hosts it serves");
      }
      if (str(notes.get("cert-manager.io/cluster-issuer")).isBlank()
          && str(notes.get("cert-manager.io/issuer")).isBlank()) {
        out.add(n + "needs a cert-manager.io/cluster-issuer (or issuer) annotation");
      }
      if (!"HTTPS".equals(notes.get(NGINX + "backend-protocol"))) {
        out.add(n + NGINX + "backend-protocol must be HTTPS: the pods serve TLS only");
      }
      if (!"on".equals(notes.get(NGINX + "proxy-ssl-verify"))
          || !(ns + "/" + str(at(servingCertificate, "spec", "secretName")))
              .equals(notes.get(NGINX + "proxy-ssl-secret"))
          || !dnsNames.contains(str(notes.get(NGINX + "proxy-ssl-name")))) {
        out.add(
            n
                + "must verify the pods' certificate: proxy-ssl-verify on, proxy-ssl-secret the"
                + " serving Certificate's Secret, proxy-ssl-name one of its dnsNames");
      }
      if (!"true".equals(notes.get(NGINX + "force-ssl-redirect"))) {
        out.add(n + NGINX + "force-ssl-redirect must be \"true\"");
      }
      long bodyLimit = nginxSize(str(notes.getOrDefault(NGINX + "proxy-body-size", "1m")));
      if (bodyLimit != 0 && bodyLimit < largestBody) {
        out.add(
            n
                + NGINX
                + "proxy-body-size "
                + notes.get(NGINX + "proxy-body-size")
                + " is below the largest body the service takes ("
                + largestBody
                + " bytes)");
      }
      for (Object rule : list(at(ing.body(), "spec", "rules"))) {
        String host = str(at(rule, "host"));
        if (!tlsHosts.contains(host)) {
          out.add(n + "rule host '" + host + "' is not covered by spec.tls");
        }
        if (!publicUrl.isEmpty() && !publicUrl.equals("https://" + host)) {
          out.add(n + "host " + host + " differs from AMBER_MEDIA_PUBLIC_BASE_URL " + publicUrl);
        }
        for (Object path : list(at(rule, "http", "paths"))) {
          Object backend = at(path, "backend", "service");
          if (!service.name().equals(at(backend, "name"))
              || !servicePorts.contains(str(at(backend, "port", "name")))) {
            out.add(n + "backend " + backend + " is not a port of Service " + service.name());
          }
        }
      }
    }

    // the NetworkPolicy: the API port from the ingress controller only
    String apiPort = String.valueOf(at(list(container.get("ports")).get(0), "containerPort"));
    for (Doc np : docs.stream().filter(d -> d.kind().equals("NetworkPolicy")).toList()) {
      for (Object rule : list(at(np.body(), "spec", "ingress"))) {
        List<Object> ports = list(at(rule, "ports"));
        boolean api =
            ports.isEmpty()
                || ports.stream()
                    .anyMatch(
                        p ->
                            apiPort.equals(String.valueOf(at(p, "port")))
                                || "https".equals(at(p, "port")));
        if (!api) {
          continue;
        }
        List<Object> from = list(at(rule, "from"));
        if (from.isEmpty()) {
          out.add("NetworkPolicy " + np.name() + " admits the API port from anywhere");
        }
        for (Object peer : from) {
          if (!INGRESS_CONTROLLER_NAMESPACE.equals(
                  at(peer, "namespaceSelector", "matchLabels", "kubernetes.io/metadata.name"))
              || at(peer, "ipBlock") != null) {
            out.add(
                "NetworkPolicy "
                    + np.name()
                    + " admits the API port from "
                    + peer
                    + "; only namespace "
                    + INGRESS_CONTROLLER_NAMESPACE
                    + " may reach it");
          }
        }
      }
    }
    return out;
  }

  /** The larger of the two body limits the Deployment's configuration sets. */
  private static long largestBody(List<Doc> docs) {
    AmberConfig config =
        ConfigLoader.load(
            workloadEnvironment(docs, find(docs, "Deployment")), new Properties(), Map.of());
    return Math.max(config.http().maxBodyBytes(), config.media().maxBytes());
  }

  /** An nginx size: bytes, or with k, m or g; 0 means no limit. */
  static long nginxSize(String text) {
    Matcher m = Pattern.compile("(\\d+)([kKmMgG]?)").matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("not an nginx size: '" + text + "'");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2).toLowerCase(java.util.Locale.ROOT)) {
      case "k" -> n << 10;
      case "m" -> n << 20;
      case "g" -> n << 30;
      default -> n;
    };
  }

  static List<String> selectionProblems(List<Doc> docs) {
    List<String> out = new ArrayList<>();
    Doc dep = find(docs, "Deployment");
    Map<String, Object> podLabels = map(at(dep.body(), "spec", "template", "metadata", "labels"));
    String ns = str(at(dep.body(), "metadata", "namespace"));
    Object depSelector = at(dep.body(), "spec", "selector", "matchLabels");
    if (!selects(depSelector, podLabels)) {
      out.add("Deployment selector does not match its own pod template labels");
    }
    Doc namespace =
        docs.stream().filter(d -> d.kind().equals("Namespace")).findFirst().orElse(null);
    if (namespace == null || !namespace.name().equals(ns)) {
      out.add("Deployment namespace " + ns + " is not the declared Namespace");
    }
    for (String kind : List.of("Service", "PodDisruptionBudget", "NetworkPolicy")) {
      List<Doc> found = docs.stream().filter(d -> d.kind().equals(kind)).toList();
      if (found.isEmpty()) {
        out.add("no " + kind);
      }
      for (Doc d : found) {
        if (!ns.equals(at(d.body(), "metadata", "namespace"))) {
          out.add(kind + " " + d.name() + " is not in namespace " + ns);
        }
      }
    }
    Doc config = appConfig(docs);
    if (config == null) {
      out.add("no ConfigMap of the Deployment's envFrom");
    } else if (!ns.equals(at(config.body(), "metadata", "namespace"))) {
      out.add("ConfigMap " + config.name() + " is not in namespace " + ns);
    }
    for (Doc scaler : autoscalers(docs)) {
      if (!ns.equals(at(scaler.body(), "metadata", "namespace"))) {
        out.add(scaler.kind() + " " + scaler.name() + " is not in namespace " + ns);
      }
    }
    Set<String> portNames = new TreeSet<>();
    Set<String> portNumbers = new TreeSet<>();
    for (Object c : list(at(dep.body(), "spec", "template", "spec", "containers"))) {
      for (Object p : list(at(c, "ports"))) {
        portNames.add(str(at(p, "name")));
        portNumbers.add(String.valueOf(at(p, "containerPort")));
      }
    }
    for (Doc d : docs) {
      Map<String, Object> spec = map(d.body().getOrDefault("spec", Map.of()));
      switch (d.kind()) {
        case "Service" -> {
          if (!selects(spec.get("selector"), podLabels)) {
            out.add(
                "Service "
                    + d.name()
                    + " selector "
                    + spec.get("selector")
                    + " does not select pods "
                    + podLabels);
          }
          for (Object p : list(spec.get("ports"))) {
            String target = String.valueOf(at(p, "targetPort"));
            if (target.equals("metrics")
                || target.equals(str(configData(docs).get("AMBER_HTTP_MANAGEMENT_PORT")))) {
              out.add("Service " + d.name() + " exposes the management port (/metrics)");
            }
            if (!portNames.contains(target) && !portNumbers.contains(target)) {
              out.add(
                  "Service "
                      + d.name()
                      + " targetPort "
                      + target
                      + " is no container port "
                      + portNames
                      + portNumbers);
            }
          }
        }
        case "PodDisruptionBudget" -> {
          if (!selects(at(spec, "selector", "matchLabels"), podLabels)) {
            out.add("PodDisruptionBudget " + d.name() + " does not select pods " + podLabels);
          }
        }
        case "NetworkPolicy" -> {
          if (!selects(at(spec, "podSelector", "matchLabels"), podLabels)) {
            out.add("NetworkPolicy " + d.name() + " does not select pods " + podLabels);
          }
        }
        case "HorizontalPodAutoscaler", "ScaledObject" -> {
          Object target = spec.get("scaleTargetRef");
          // a ScaledObject's target defaults to apps/v1 Deployment
          String apiVersion = Objects.toString(at(target, "apiVersion"), "apps/v1");
          String kind = Objects.toString(at(target, "kind"), "Deployment");
          if (!apiVersion.equals("apps/v1")
              || !kind.equals("Deployment")
              || !dep.name().equals(at(target, "name"))) {
            out.add(d.kind() + " " + d.name() + " does not target Deployment " + dep.name());
          }
          if (minReplicas(d) < 2) {
            out.add(d.kind() + " " + d.name() + " minReplicas must be at least 2");
          }
        }
        default -> {}
      }
    }
    List<Doc> scalers = autoscalers(docs);
    if (scalers.size() > 1) {
      out.add("more than one autoscaler drives Deployment " + dep.name() + ": " + scalers);
    }
    boolean fixedReplicas = at(dep.body(), "spec", "replicas") != null;
    if (!scalers.isEmpty() && fixedReplicas) {
      out.add(
          "Deployment "
              + dep.name()
              + " sets spec.replicas while an autoscaler drives it: every apply would reset it");
    }
    if (scalers.isEmpty() && !fixedReplicas) {
      out.add("Deployment " + dep.name() + " has neither spec.replicas nor an autoscaler");
    }
    // drains take one pod at a time whatever the replica count (minAvailable: 1 of 12 let 11 go)
    for (Doc pdb : docs.stream().filter(d -> d.kind().equals("PodDisruptionBudget")).toList()) {
      if (!Integer.valueOf(1).equals(at(pdb.body(), "spec", "maxUnavailable"))
          || at(pdb.body(), "spec", "minAvailable") != null) {
        out.add(
            "PodDisruptionBudget "
                + pdb.name()
                + " must set maxUnavailable: 1 and no minAvailable, has "
                + pdb.body().get("spec"));
      }
    }
    // the policy denies all egress it does not list: the service needs Cassandra, Kafka and DNS
    for (Doc np : docs.stream().filter(d -> d.kind().equals("NetworkPolicy")).toList()) {
      if (!list(at(np.body(), "spec", "policyTypes")).contains("Egress")) {
        continue;
      }
      Set<String> egressPorts = new TreeSet<>();
      for (Object rule : list(at(np.body(), "spec", "egress"))) {
        for (Object p : list(at(rule, "ports"))) {
          egressPorts.add(String.valueOf(at(p, "port")));
        }
      }
      for (String needed : List.of("9042", "9093", "53")) {
        if (!egressPorts.contains(needed)) {
          out.add("NetworkPolicy " + np.name() + " allows no egress to port " + needed);
        }
      }
    }
    return out;
  }

  // ================================================== helpers
  // ==================================================

  private static void expectDeploymentProblem(
      Consumer<Map<String, Object>> breakIt, Duration shutdown, String fragment) {
    Map<String, Object> d = fresh("Deployment").body();
    breakIt.accept(d);
    assertThat(deploymentProblems(d, shutdown))
        .as("after breaking %s", fragment)
        .anyMatch(p -> p.contains(fragment));
  }

  private static void expectEnvProblem(Consumer<List<Doc>> breakIt, String fragment) {
    List<Doc> docs = new ArrayList<>(loadAll());
    breakIt.accept(docs);
    assertThat(envProblems(docs))
        .as("after breaking %s", fragment)
        .anyMatch(p -> p.contains(fragment));
  }

  private static void expectEngineProblem(Consumer<List<Doc>> breakIt, String fragment) {
    expectEngineProblem(Kustomize.PRODUCTION, breakIt, fragment);
  }

  private static void expectEngineProblem(
      Path overlay, Consumer<List<Doc>> breakIt, String fragment) {
    List<Doc> docs = new ArrayList<>(load(overlay));
    breakIt.accept(docs);
    assertThat(engineProblems(docs))
        .as("after breaking %s", fragment)
        .anyMatch(p -> p.contains(fragment));
  }

  private static void expectTransportProblem(Consumer<List<Doc>> breakIt, String fragment) {
    List<Doc> docs = new ArrayList<>(loadAll());
    breakIt.accept(docs);
    assertThat(transportProblems(docs))
        .as("after breaking %s", fragment)
        .anyMatch(p -> p.contains(fragment));
  }

  private static Map<String, Object> certificate(List<Doc> docs, String name) {
    return docs.stream()
        .filter(d -> d.kind().equals("Certificate") && d.name().equals(name))
        .findFirst()
        .orElseThrow()
        .body();
  }

  private static void expectSelectionProblem(Consumer<List<Doc>> breakIt, String fragment) {
    expectSelectionProblem(Kustomize.PRODUCTION, breakIt, fragment);
  }

  private static void expectSelectionProblem(
      Path overlay, Consumer<List<Doc>> breakIt, String fragment) {
    List<Doc> docs = new ArrayList<>(load(overlay));
    breakIt.accept(docs);
    assertThat(selectionProblems(docs))
        .as("after breaking %s", fragment)
        .anyMatch(p -> p.contains(fragment));
  }

  /** The environment the Deployment gives its first container, secrets replaced by placeholders. */
  private static Map<String, String> deploymentEnvironment(List<Doc> docs) {
    return workloadEnvironment(docs, find(docs, "Deployment"));
  }

  /**
   * The environment a workload (the Deployment, the schema Job) gives its first container: its
   * ConfigMaps and env, secrets replaced by placeholders and mounted files by stand-in files.
   */
  static Map<String, String> workloadEnvironment(List<Doc> docs, Doc workload) {
    Map<String, String> env = rawEnvironment(docs, workload);
    // files mounted in the pod (truststores, keys) do not exist here: a stand-in file each
    env.replaceAll((name, value) -> isFileSetting(name) ? standInFile() : value);
    return env;
  }

  private static boolean isFileSetting(String name) {
    return name.endsWith("_PATH") || name.endsWith("_LOCATION") || name.endsWith("_FILE");
  }

  /** The environment of a workload's first container as written, secrets as placeholders. */
  static Map<String, String> rawEnvironment(List<Doc> docs, Doc workload) {
    Map<String, String> env = new LinkedHashMap<>();
    Map<String, Object> c = firstContainer(workload.body());
    for (Object from : list(c.get("envFrom"))) {
      String cm = str(at(from, "configMapRef", "name"));
      docs.stream()
          .filter(d -> d.kind().equals("ConfigMap") && d.name().equals(cm))
          .forEach(d -> map(d.body().get("data")).forEach((k, v) -> env.put(k, String.valueOf(v))));
    }
    for (Object e : list(c.get("env"))) {
      env.put(
          str(at(e, "name")),
          at(e, "value") != null ? String.valueOf(at(e, "value")) : "secret-placeholder");
    }
    return env;
  }

  private static String standInFile() {
    try {
      Path f = Files.createTempFile("k8s-mounted-", ".file");
      f.toFile().deleteOnExit();
      return f.toString();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean isSecretName(String name) {
    return name.endsWith("_PASSWORD") || name.endsWith("_USERNAME");
  }

  /** The HorizontalPodAutoscalers and KEDA ScaledObjects (which make one each). */
  static List<Doc> autoscalers(List<Doc> docs) {
    return docs.stream()
        .filter(d -> Set.of("HorizontalPodAutoscaler", "ScaledObject").contains(d.kind()))
        .toList();
  }

  static int maxReplicas(Doc scaler) {
    return replicaBound(scaler, "max", Integer.MAX_VALUE);
  }

  static int minReplicas(Doc scaler) {
    return replicaBound(scaler, "min", 1);
  }

  /** An HPA's {@code minReplicas}/{@code maxReplicas}, a ScaledObject's {@code ...ReplicaCount}. */
  private static int replicaBound(Doc scaler, String bound, int unset) {
    String field = bound + (scaler.kind().equals("ScaledObject") ? "ReplicaCount" : "Replicas");
    return at(scaler.body(), "spec", field) instanceof Number n ? n.intValue() : unset;
  }

  /** The cassandra.version of the local runtime's POM: the Cassandra everything here runs. */
  static String localCassandraVersion() {
    try {
      Matcher m =
          Pattern.compile("<cassandra.version>([^<]+)</cassandra.version>")
              .matcher(Files.readString(LOCAL_CASSANDRA_POM));
      assertThat(m.find()).as("cassandra.version in " + LOCAL_CASSANDRA_POM).isTrue();
      return m.group(1).trim();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Non-empty selector whose every label the pod carries. */
  private static boolean selects(Object selector, Map<String, Object> podLabels) {
    if (!(selector instanceof Map<?, ?> s) || s.isEmpty() || podLabels.isEmpty()) {
      return false;
    }
    return s.entrySet().stream()
        .allMatch(e -> Objects.equals(podLabels.get(String.valueOf(e.getKey())), e.getValue()));
  }

  /**
   * How long the service may take to stop after SIGTERM: the {@code shutdown.grace-period} key when
   * the application has one, else the bound its shutdown hook waits for ({@code app.stop().await(N,
   * TimeUnit.X)} in AmberGarden.main), else 30 s.
   */
  static Duration appShutdownGrace() throws IOException {
    String key = appProperties().getProperty("shutdown.grace-period");
    if (key != null) {
      return parseDuration(key);
    }
    Matcher m =
        Pattern.compile(
                "stop\\(\\)\\s*\\.await\\(\\s*(\\d+)\\s*,\\s*TimeUnit\\.(MILLISECONDS|SECONDS|MINUTES)\\s*\\)")
            .matcher(Files.readString(MAIN_CLASS));
    if (m.find()) {
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "MILLISECONDS" -> Duration.ofMillis(n);
        case "MINUTES" -> Duration.ofMinutes(n);
        default -> Duration.ofSeconds(n);
      };
    }
    return DEFAULT_SHUTDOWN_GRACE;
  }

  static Duration parseDuration(String text) {
    Matcher m = Pattern.compile("(\\d+)(ms|s|m|h|d)").matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "not a duration with a unit (ms, s, m, h, d): '" + text + "'");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofDays(n);
    };
  }

  private static Properties appProperties() {
    try {
      Properties p = new Properties();
      p.load(new StringReader(Files.readString(PROPERTIES, StandardCharsets.UTF_8)));
      return p;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Every document the production overlay and the engines render to, parsed afresh (callers may
   * change what they get).
   */
  static List<Doc> loadAll() {
    return load(Kustomize.PRODUCTION);
  }

  /** Every document an overlay and the engines render to, parsed afresh. */
  static List<Doc> load(Path overlay) {
    List<Doc> out = new ArrayList<>();
    for (Path dir : List.of(overlay, Kustomize.ENGINES)) {
      List<Map<String, Object>> bodies = parseStrict(Kustomize.render(dir), dir.toString());
      for (int i = 0; i < bodies.size(); i++) {
        out.add(new Doc(dir, i, bodies.get(i)));
      }
    }
    assertThat(out).as("documents rendered from " + overlay).isNotEmpty();
    return out;
  }

  static List<Map<String, Object>> parseStrict(String text, String source) {
    LoaderOptions options = new LoaderOptions();
    options.setAllowDuplicateKeys(false);
    options.setAllowRecursiveKeys(false);
    DumperOptions dumper = new DumperOptions();
    Yaml yaml = new Yaml(new SafeConstructor(options), new Representer(dumper), dumper, options);
    List<Map<String, Object>> out = new ArrayList<>();
    int i = 0;
    try {
      for (Object doc : yaml.loadAll(text)) {
        if (!(doc instanceof Map<?, ?> m)) {
          throw new IllegalArgumentException(
              source + " document " + i + " is not a mapping: " + doc);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> body = (Map<String, Object>) m;
        out.add(body);
        i++;
      }
    } catch (YAMLException e) {
      throw new IllegalArgumentException(source + " document " + i + ": " + e.getMessage(), e);
    }
    return out;
  }

  private static Doc doc(String yaml) {
    return new Doc(Path.of("inline.yaml"), 0, parseStrict(yaml, "inline").get(0));
  }

  private static Doc fresh(String kind) {
    return find(loadAll(), kind);
  }

  /** The document of this kind and name, or null when none is declared. */
  static Doc declared(List<Doc> docs, String kind, String name) {
    return docs.stream()
        .filter(d -> d.kind().equals(kind) && d.name().equals(name))
        .findFirst()
        .orElse(null);
  }

  static Doc find(List<Doc> docs, String kind) {
    List<Doc> found = docs.stream().filter(d -> d.kind().equals(kind)).toList();
    assertThat(found).as("exactly one %s", kind).hasSize(1);
    return found.get(0);
  }

  private static Map<String, Object> topic(List<Doc> docs, String name) {
    return docs.stream()
        .filter(d -> d.kind().equals("KafkaTopic") && d.name().equals(name))
        .findFirst()
        .orElseThrow()
        .body();
  }

  /** The data of the ConfigMap the Deployment's first envFrom names (a fresh map if none). */
  static Map<String, Object> configData(List<Doc> docs) {
    Doc config = appConfig(docs);
    return config == null ? new LinkedHashMap<>() : map(config.body().get("data"));
  }

  /** The generated ConfigMap the Deployment reads, found by the (hashed) name it references. */
  static Doc appConfig(List<Doc> docs) {
    List<Object> envFrom = list(firstContainer(find(docs, "Deployment").body()).get("envFrom"));
    String cm = envFrom.isEmpty() ? "" : str(at(envFrom.get(0), "configMapRef", "name"));
    return docs.stream()
        .filter(d -> d.kind().equals("ConfigMap") && d.name().equals(cm))
        .findFirst()
        .orElse(null);
  }

  private static List<Object> env(List<Doc> docs) {
    return list(firstContainer(find(docs, "Deployment").body()).get("env"));
  }

  private static Map<String, Object> podSpec(Map<String, Object> dep) {
    return map(at(dep, "spec", "template", "spec"));
  }

  static Map<String, Object> firstContainer(Map<String, Object> dep) {
    return map(list(at(dep, "spec", "template", "spec", "containers")).get(0));
  }

  private static Map<String, Object> containerSecurity(Map<String, Object> dep) {
    return map(firstContainer(dep).get("securityContext"));
  }

  private static void unknownFields(
      List<String> out, String where, Object node, Set<String> known) {
    if (node == null) {
      return;
    }
    if (!(node instanceof Map<?, ?> m)) {
      out.add(where + " is not a mapping");
      return;
    }
    for (Object k : m.keySet()) {
      if (!known.contains(String.valueOf(k))) {
        out.add("unknown field " + (where.isEmpty() ? "" : where + ".") + k);
      }
    }
  }

  /** Walks nested mappings; null when any step is missing or not a mapping. */
  static Object at(Object root, String... path) {
    Object cur = root;
    for (String p : path) {
      if (!(cur instanceof Map<?, ?> m)) {
        return null;
      }
      cur = m.get(p);
    }
    return cur;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : new LinkedHashMap<>();
  }

  @SuppressWarnings("unchecked")
  static List<Object> list(Object o) {
    return o instanceof List<?> l ? (List<Object>) l : new ArrayList<>();
  }

  static String str(Object o) {
    return o == null ? "" : o.toString();
  }
}
