package io.ambergarden.k8s;

import static io.ambergarden.k8s.K8sManifestsTest.at;
import static io.ambergarden.k8s.K8sManifestsTest.configData;
import static io.ambergarden.k8s.K8sManifestsTest.declared;
import static io.ambergarden.k8s.K8sManifestsTest.find;
import static io.ambergarden.k8s.K8sManifestsTest.firstContainer;
import static io.ambergarden.k8s.K8sManifestsTest.list;
import static io.ambergarden.k8s.K8sManifestsTest.load;
import static io.ambergarden.k8s.K8sManifestsTest.map;
import static io.ambergarden.k8s.K8sManifestsTest.str;
import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.k8s.K8sManifestsTest.Doc;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * What the overlays under k8s/overlays promise, checked on what {@code kubectl kustomize} renders:
 * every overlay passes every manifest check; one metrics port everywhere; a heap, direct memory and
 * the JVM's other pools that fit the pod's memory limit; a runbook for every alert; a ConfigMap
 * whose name changes with its content; the Prometheus `release` label; no placeholder left; and
 * KEDA scaling on the service's own consumer lag. Each check is also shown to catch its breakage.
 */
class K8sOverlaysTest {
  /** Where every alert's runbook lives; the GitHub prefix is the one the rules' comment names. */
  static final String RUNBOOK_BASE =
      "https://github.com/amber-garden/amber-garden/blob/main/docs/operations/runbooks/";

  private static final Path RUNBOOKS = Path.of("docs/operations/runbooks");
  private static final Path POM = Path.of("pom.xml");
  private static final String MONITORING_NAMESPACE = "monitoring";
  private static final String PLACEHOLDER = "set-by-overlay";

  /**
   * What the JVM uses besides its heap, direct buffers, metaspace and code cache: thread stacks
   * (about 150 threads of 1 MiB), GC data structures and other native memory.
   */
  static final long OTHER_NATIVE_BYTES = 256L << 20;

  /** JVM flags that size memory: they belong next to the pod's limit, never in the image. */
  private static final Set<String> SIZING_FLAGS =
      Set.of(
          "-XX:MaxRAMPercentage",
          "-XX:InitialRAMPercentage",
          "-XX:MinRAMPercentage",
          "-XX:MaxRAM",
          "-Xmx",
          "-Xms",
          "-XX:MaxDirectMemorySize",
          "-XX:MaxMetaspaceSize",
          "-XX:ReservedCodeCacheSize");

  static List<Path> overlays() {
    return Kustomize.OVERLAYS;
  }

  // =================================================== tests

  @ParameterizedTest
  @MethodSource("overlays")
  void everyOverlayRendersAndPassesEveryCheck(Path overlay) throws IOException {
    List<Doc> docs = load(overlay);
    Map<String, List<String>> problems = new LinkedHashMap<>();
    problems.put("kinds", K8sManifestsTest.renderedKindProblems(docs));
    problems.put("secrets", K8sManifestsTest.secretProblems(docs));
    problems.put(
        "deployment",
        K8sManifestsTest.deploymentProblems(
            find(docs, "Deployment").body(), K8sManifestsTest.appShutdownGrace()));
    problems.put("environment", K8sManifestsTest.envProblems(docs));
    problems.put("schema job", SchemaJobManifestTest.schemaProblems(docs));
    problems.put("engines", K8sManifestsTest.engineProblems(docs));
    problems.put("selection", K8sManifestsTest.selectionProblems(docs));
    problems.put("transport", K8sManifestsTest.transportProblems(docs));
    problems.put("metrics port", metricsPortProblems(docs));
    problems.put("memory", memoryProblems(docs));
    problems.put("alerts", alertProblems(docs));
    problems.put("config hash", configHashProblems(docs));
    problems.put("placeholders", placeholderProblems(Kustomize.render(overlay)));
    problems.put("release label", releaseLabelProblems(docs));
    problems.put("autoscaling", kedaProblems(docs));
    problems.values().removeIf(List::isEmpty);
    assertThat(problems).as(overlay.toString()).isEmpty();
  }

  @Test
  void everyFileUnderK8sBelongsToAKustomizationAndParsesWithoutDuplicateKeys() throws IOException {
    Set<Path> referenced = new TreeSet<>();
    Set<Path> kustomizations = new TreeSet<>();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(Kustomize.K8S)) {
      files = walk.filter(Files::isRegularFile).map(Path::normalize).sorted().toList();
    }
    for (Path f : files) {
      if (f.toString().endsWith(".yaml")) {
        strictLoad(f); // duplicate keys fail here, before kustomize silently keeps one
      }
      if (f.getFileName().toString().equals("kustomization.yaml")) {
        kustomizations.add(f);
        referenced.addAll(referencedFiles(f));
      }
    }
    List<Path> orphans =
        files.stream().filter(f -> !kustomizations.contains(f) && !referenced.contains(f)).toList();
    assertThat(orphans).as("files under k8s/ that no kustomization installs").isEmpty();
    assertThat(kustomizations)
        .as("every overlay and the engines are kustomizations")
        .contains(
            Kustomize.DEV.resolve("kustomization.yaml"),
            Kustomize.PRODUCTION.resolve("kustomization.yaml"),
            Kustomize.PRODUCTION_KEDA.resolve("kustomization.yaml"),
            Kustomize.ENGINES.resolve("kustomization.yaml"));
  }

  @Test
  void aChangedSettingRenamesTheConfigMapSoThePodsRoll(@TempDir Path tmp) throws IOException {
    copyTree(Kustomize.K8S, tmp.resolve("k8s"));
    List<Doc> before = load(Kustomize.PRODUCTION);
    Files.writeString(
        tmp.resolve("k8s/base/config.env"), "\nAMBER_LOG_LEVEL=debug\n", StandardOpenOption.APPEND);
    List<Doc> after =
        docsOf(Kustomize.renderNow(tmp.resolve("k8s/overlays/production")), "changed copy");
    assertThat(configHashProblems(after)).isEmpty();
    String oldName = K8sManifestsTest.appConfig(before).name();
    String newName = K8sManifestsTest.appConfig(after).name();
    assertThat(newName).isNotEqualTo(oldName);
    assertThat(envFromName(find(after, "Deployment"))).isEqualTo(newName);
    assertThat(str(K8sManifestsTest.configData(after).get("AMBER_LOG_LEVEL"))).isEqualTo("debug");
  }

  @Test
  void theProductionOverlaySetsTheReleaseLabelOnTheRulesAndThePodMonitor() {
    List<Doc> docs = load(Kustomize.PRODUCTION);
    for (String kind : List.of("PrometheusRule", "PodMonitor")) {
      assertThat(str(at(find(docs, kind).body(), "metadata", "labels", "release")))
          .as("%s label release", kind)
          .isEqualTo("kube-prometheus-stack");
    }
  }

  @Test
  void theOverlaysDifferWhereEnvironmentsDo() {
    List<Doc> dev = load(Kustomize.DEV);
    List<Doc> production = load(Kustomize.PRODUCTION);
    Function<List<Doc>, String> host =
        docs -> str(at(list(at(find(docs, "Ingress").body(), "spec", "rules")).get(0), "host"));
    Function<List<Doc>, String> issuer =
        docs ->
            str(
                at(
                    find(docs, "Ingress").body(),
                    "metadata",
                    "annotations",
                    "cert-manager.io/cluster-issuer"));
    Function<List<Doc>, String> image =
        docs -> str(firstContainer(find(docs, "Deployment").body()).get("image"));
    assertThat(host.apply(dev)).isNotEqualTo(host.apply(production));
    assertThat(issuer.apply(dev)).isNotEqualTo(issuer.apply(production));
    assertThat(image.apply(dev)).isNotEqualTo(image.apply(production));
    assertThat(image.apply(production)).endsWith(":0.1.0");
    assertThat(at(find(production, "Deployment").body(), "spec", "replicas")).isEqualTo(4);
    assertThat(at(find(dev, "Deployment").body(), "spec", "replicas")).isEqualTo(2);
    // merged, not replaced: the base's settings stay
    assertThat(configData(dev)).containsKey("AMBER_KAFKA_BOOTSTRAP_SERVERS");
  }

  @Test
  void sizesAreReadAsTheJvmAndKubernetesMeanThem() {
    assertThat(jvmSize("256m")).isEqualTo(256L << 20);
    assertThat(jvmSize("2g")).isEqualTo(2L << 30);
    assertThat(jvmSize("512K")).isEqualTo(512L << 10);
    assertThat(jvmSize("1000")).isEqualTo(1000);
    assertThat(quantity("2Gi")).isEqualTo(2L << 30);
    assertThat(quantity("1536Mi")).isEqualTo(1536L << 20);
    assertThat(quantity("1G")).isEqualTo(1_000_000_000L);
    assertThat(quantity("500M")).isEqualTo(500_000_000L);
    assertThat(quantity("1048576")).isEqualTo(1L << 20);
  }

  @Test
  void theNewChecksCatchEachBreakage() {
    expect(metricsPort(d -> configData(d).put("AMBER_HTTP_MANAGEMENT_PORT", "9091")), "9091");
    expect(
        metricsPort(
            d ->
                list(firstContainer(find(d, "Deployment").body()).get("ports"))
                    .removeIf(p -> "metrics".equals(at(p, "name")))),
        "metrics");
    expect(metricsPort(d -> firstMetricsEndpoint(d).put("port", "https")), "PodMonitor");
    expect(metricsPort(d -> firstMetricsEndpoint(d).put("path", "/prometheus")), "/metrics");
    expect(
        metricsPort(
            d ->
                map(at(find(d, "PodMonitor").body(), "spec", "selector"))
                    .put("matchLabels", Map.of("app.kubernetes.io/part-of", "amber-garden"))),
        "schema Job");
    expect(
        metricsPort(
            d ->
                list(at(find(d, "NetworkPolicy").body(), "spec", "ingress"))
                    .removeIf(
                        r ->
                            list(at(r, "ports")).stream()
                                .anyMatch(p -> Integer.valueOf(9090).equals(at(p, "port"))))),
        "NetworkPolicy");
    expect(
        metricsPort(
            d ->
                list(at(find(d, "Service").body(), "spec", "ports"))
                    .add(Map.of("name", "metrics", "port", 9090, "targetPort", "metrics"))),
        "Service");
    expect(
        metricsPort(
            d ->
                map(at(find(d, "Deployment").body(), "spec", "template", "metadata"))
                    .put("annotations", Map.of("prometheus.io/port", "8080"))),
        "prometheus.io/port");

    expect(memory(d -> setJavaOptions(d, "Deployment", o -> o.replace("=50", "=80"))), "exceed");
    expect(
        memory(
            d ->
                setJavaOptions(
                    d, "Deployment", o -> o.replace("-XX:MaxDirectMemorySize=256m", ""))),
        "MaxDirectMemorySize");
    expect(memory(d -> setJavaOptions(d, "Job", o -> o + " -XX:+UseZGC")), "repeats the image's");
    expect(
        memory(
            d ->
                map(at(firstContainer(find(d, "Deployment").body()), "resources", "limits"))
                    .put("memory", "1536Mi")),
        "exceed");
    expect(
        memory(
            d ->
                map(at(firstContainer(find(d, "Deployment").body()), "resources", "requests"))
                    .put("memory", "1Gi")),
        "requests.memory");

    expect(alerts(d -> rules(d).get(0).remove("annotations")), "runbook_url");
    expect(
        alerts(
            d ->
                map(rules(d).get(1).get("annotations"))
                    .put("runbook_url", RUNBOOK_BASE + "AmberSomethingElse.md")),
        "runbook_url");

    expect(
        configHash(
            d -> {
              map(K8sManifestsTest.appConfig(d).body().get("metadata")).put("name", "amber-garden");
              map(at(
                      list(firstContainer(find(d, "Deployment").body()).get("envFrom")).get(0),
                      "configMapRef"))
                  .put("name", "amber-garden");
            }),
        "hash suffix");
    expect(
        configHash(
            d ->
                map(at(
                        list(firstContainer(find(d, "Job").body()).get("envFrom")).get(0),
                        "configMapRef"))
                    .put("name", "amber-garden-old")),
        "Job");

    assertThat(placeholderProblems("host: host.set-by-overlay.invalid\n")).isNotEmpty();

    expect(
        releaseLabel(
            d -> map(at(find(d, "PodMonitor").body(), "metadata", "labels")).remove("release")),
        "PodMonitor");
    expect(
        releaseLabel(
            d ->
                map(at(find(d, "PrometheusRule").body(), "metadata", "labels"))
                    .put("release", "prometheus")),
        "same release");

    expect(keda(d -> kafkaTrigger(d).put("topic", "amber.live")), "topic");
    expect(keda(d -> kafkaTrigger(d).put("consumerGroup", "amber")), "consumerGroup");
    expect(keda(d -> kafkaTrigger(d).put("bootstrapServers", "kafka:9092")), "bootstrapServers");
    expect(keda(d -> kafkaTrigger(d).put("tls", "disable")), "tls");
    expect(keda(d -> kafkaTrigger(d).remove("lagThreshold")), "lagThreshold");
    expect(
        keda(
            d ->
                list(at(find(d, "TriggerAuthentication").body(), "spec", "secretTargetRef"))
                    .stream()
                    .map(K8sManifestsTest::map)
                    .filter(r -> "password".equals(r.get("parameter")))
                    .forEach(r -> r.put("key", "pasword"))),
        "pasword");
    expect(
        keda(d -> d.removeIf(x -> x.kind().equals("TriggerAuthentication"))),
        "TriggerAuthentication");
    expect(keda(d -> configData(d).put("AMBER_SERVICE_REPLICAS", "4")), "AMBER_SERVICE_REPLICAS");
  }

  // =================================================== checks

  /**
   * One metrics port: the management port of the configuration is the Deployment's container port
   * "metrics", which the PodMonitor scrapes at /metrics on the service's pods (not the schema
   * Job's), the NetworkPolicy admits from the monitoring namespace, any prometheus.io/port
   * annotation names, and the Service does not expose. The guide says the same number.
   */
  static List<String> metricsPortProblems(List<Doc> docs) {
    List<String> out = new ArrayList<>();
    String port = str(configData(docs).get("AMBER_HTTP_MANAGEMENT_PORT"));
    if (!port.matches("\\d+")) {
      out.add("AMBER_HTTP_MANAGEMENT_PORT must be set: /metrics needs credentials on the API port");
      return out;
    }
    Doc dep = find(docs, "Deployment");
    Map<String, Object> podLabels = map(at(dep.body(), "spec", "template", "metadata", "labels"));
    Object metrics =
        list(firstContainer(dep.body()).get("ports")).stream()
            .filter(p -> "metrics".equals(at(p, "name")))
            .findFirst()
            .orElse(null);
    if (metrics == null || !port.equals(String.valueOf(at(metrics, "containerPort")))) {
      out.add(
          "the Deployment's container port \"metrics\" must be "
              + port
              + " (AMBER_HTTP_MANAGEMENT_PORT), is "
              + metrics);
    }
    Object annotated =
        at(dep.body(), "spec", "template", "metadata", "annotations", "prometheus.io/port");
    if (annotated != null && !port.equals(str(annotated))) {
      out.add("the pods' prometheus.io/port annotation " + annotated + " is not " + port);
    }
    List<Doc> monitors = docs.stream().filter(d -> d.kind().equals("PodMonitor")).toList();
    if (monitors.size() != 1) {
      out.add("exactly one PodMonitor must scrape the pods, found " + monitors.size());
    }
    Doc job = docs.stream().filter(d -> d.kind().equals("Job")).findFirst().orElse(null);
    for (Doc m : monitors) {
      Object selector = at(m.body(), "spec", "selector", "matchLabels");
      if (!selects(selector, podLabels)) {
        out.add("PodMonitor " + m.name() + " does not select the Deployment's pods");
      }
      if (job != null
          && selects(selector, map(at(job.body(), "spec", "template", "metadata", "labels")))) {
        out.add("PodMonitor " + m.name() + " also selects the schema Job's pods");
      }
      if (!Objects.equals(
          at(m.body(), "metadata", "namespace"), at(dep.body(), "metadata", "namespace"))) {
        out.add("PodMonitor " + m.name() + " is not in the Deployment's namespace");
      }
      List<Object> endpoints = list(at(m.body(), "spec", "podMetricsEndpoints"));
      if (endpoints.isEmpty()) {
        out.add("PodMonitor " + m.name() + " has no podMetricsEndpoints");
      }
      for (Object e : endpoints) {
        boolean samePort = "metrics".equals(at(e, "port")) || port.equals(str(at(e, "targetPort")));
        if (!samePort) {
          out.add("PodMonitor " + m.name() + " scrapes " + e + ", not the port \"metrics\"");
        }
        if (!"/metrics".equals(at(e, "path"))) {
          out.add("PodMonitor " + m.name() + " must scrape path /metrics, has " + at(e, "path"));
        }
      }
    }
    boolean admitted = false;
    for (Doc np : docs.stream().filter(d -> d.kind().equals("NetworkPolicy")).toList()) {
      for (Object rule : list(at(np.body(), "spec", "ingress"))) {
        boolean forPort =
            list(at(rule, "ports")).stream()
                .anyMatch(p -> port.equals(str(at(p, "port"))) || "metrics".equals(at(p, "port")));
        boolean fromMonitoring =
            list(at(rule, "from")).stream()
                .anyMatch(
                    f ->
                        MONITORING_NAMESPACE.equals(
                            at(
                                f,
                                "namespaceSelector",
                                "matchLabels",
                                "kubernetes.io/metadata.name")));
        admitted |= forPort && fromMonitoring;
      }
    }
    if (!admitted) {
      out.add("no NetworkPolicy admits port " + port + " from namespace " + MONITORING_NAMESPACE);
    }
    for (Object p : list(at(find(docs, "Service").body(), "spec", "ports"))) {
      String target = str(at(p, "targetPort"));
      if (target.equals("metrics") || target.equals(port)) {
        out.add("the Service exposes the metrics port, which has no credentials");
      }
    }
    try {
      if (!Files.readString(K8sManifestsTest.KUBERNETES_GUIDE).contains("`" + port + "`")) {
        out.add(K8sManifestsTest.KUBERNETES_GUIDE + " does not name the metrics port " + port);
      }
    } catch (IOException e) {
      out.add("cannot read " + K8sManifestsTest.KUBERNETES_GUIDE + ": " + e);
    }
    return out;
  }

  /**
   * For the Deployment and the schema Job: JAVA_TOOL_OPTIONS bounds the heap (a share of the
   * limit), direct memory, metaspace and code cache, and with {@link #OTHER_NATIVE_BYTES} they fit
   * the memory limit, which equals the request. It repeats none of the image's flags, and the image
   * sizes no memory (its entrypoint flags would win over JAVA_TOOL_OPTIONS).
   */
  static List<String> memoryProblems(List<Doc> docs) {
    List<String> out = new ArrayList<>();
    List<String> entrypoint = imageEntrypoint();
    Set<String> imageFlags = new TreeSet<>();
    for (String arg : entrypoint) {
      if (arg.startsWith("-")) {
        imageFlags.add(flagName(arg));
        if (SIZING_FLAGS.contains(flagName(arg))) {
          out.add(
              "the image's entrypoint sets " + arg + ", which JAVA_TOOL_OPTIONS cannot override");
        }
      }
    }
    for (Doc w :
        docs.stream().filter(d -> Set.of("Deployment", "Job").contains(d.kind())).toList()) {
      String n = w.kind() + " " + w.name() + ": ";
      Map<String, Object> c = firstContainer(w.body());
      String options =
          list(c.get("env")).stream()
              .filter(e -> "JAVA_TOOL_OPTIONS".equals(at(e, "name")))
              .map(e -> str(at(e, "value")))
              .findFirst()
              .orElse("");
      Map<String, String> flags = new LinkedHashMap<>();
      for (String f : options.trim().split("\\s+")) {
        if (!f.isEmpty()) {
          if (imageFlags.contains(flagName(f))) {
            out.add(n + "JAVA_TOOL_OPTIONS repeats the image's " + flagName(f));
          }
          int eq = f.indexOf('=');
          flags.put(flagName(f), eq < 0 ? "" : f.substring(eq + 1));
        }
      }
      String limitText = str(at(c, "resources", "limits", "memory"));
      if (limitText.isEmpty()) {
        out.add(n + "no memory limit");
        continue;
      }
      if (!limitText.equals(str(at(c, "resources", "requests", "memory")))) {
        out.add(n + "requests.memory must equal the limit " + limitText);
      }
      long limit = quantity(limitText);
      long sum = OTHER_NATIVE_BYTES;
      String percent = flags.get("-XX:MaxRAMPercentage");
      if (percent == null) {
        out.add(n + "JAVA_TOOL_OPTIONS must set -XX:MaxRAMPercentage");
      } else {
        sum += (long) (limit * Double.parseDouble(percent) / 100);
      }
      for (String pool :
          List.of("-XX:MaxDirectMemorySize", "-XX:MaxMetaspaceSize", "-XX:ReservedCodeCacheSize")) {
        if (flags.get(pool) == null) {
          out.add(n + "JAVA_TOOL_OPTIONS must bound " + pool);
        } else {
          sum += jvmSize(flags.get(pool));
        }
      }
      if (sum > limit) {
        out.add(
            n
                + "heap, direct memory, metaspace, code cache and "
                + (OTHER_NATIVE_BYTES >> 20)
                + " MiB of other native memory exceed the limit "
                + limitText
                + " ("
                + (sum >> 20)
                + " MiB)");
      }
    }
    return out;
  }

  /**
   * Every alert has a runbook_url to docs/operations/runbooks/<alert>.md, which exists once
   * written.
   */
  static List<String> alertProblems(List<Doc> docs) {
    List<String> out = new ArrayList<>();
    for (Doc rule : docs.stream().filter(d -> d.kind().equals("PrometheusRule")).toList()) {
      for (Object group : list(at(rule.body(), "spec", "groups"))) {
        for (Object r : list(at(group, "rules"))) {
          String alert = str(at(r, "alert"));
          if (alert.isEmpty()) {
            continue;
          }
          String expected = RUNBOOK_BASE + alert + ".md";
          if (!expected.equals(at(r, "annotations", "runbook_url"))) {
            out.add(
                "alert "
                    + alert
                    + " needs annotation runbook_url "
                    + expected
                    + ", has "
                    + at(r, "annotations", "runbook_url"));
          }
          // the runbooks are written alongside; once the directory exists each one must be there
          if (Files.isDirectory(RUNBOOKS)
              && !Files.isRegularFile(RUNBOOKS.resolve(alert + ".md"))) {
            out.add("alert " + alert + " has no " + RUNBOOKS.resolve(alert + ".md"));
          }
        }
      }
    }
    return out;
  }

  /**
   * The ConfigMap carries its content's hash in its name, and both workloads reference that name.
   */
  static List<String> configHashProblems(List<Doc> docs) {
    List<String> out = new ArrayList<>();
    Doc config = K8sManifestsTest.appConfig(docs);
    if (config == null) {
      out.add("the Deployment references no generated ConfigMap");
      return out;
    }
    if (!config.name().matches("amber-garden-[a-z0-9]{6,}")) {
      out.add(
          "ConfigMap "
              + config.name()
              + " has no hash suffix: a changed setting would not roll the pods");
    }
    for (Doc w : docs.stream().filter(d -> d.kind().equals("Job")).toList()) {
      if (!config.name().equals(envFromName(w))) {
        out.add(
            "Job " + w.name() + " reads ConfigMap " + envFromName(w) + ", not " + config.name());
      }
    }
    return out;
  }

  /** The base's placeholders (ingress host and issuer) are all replaced by the overlay. */
  static List<String> placeholderProblems(String rendered) {
    return rendered
        .lines()
        .filter(l -> l.contains(PLACEHOLDER))
        .map(l -> "left for the overlay to set: " + l.trim())
        .toList();
  }

  /** Every Prometheus Operator object carries the same non-empty `release` label. */
  static List<String> releaseLabelProblems(List<Doc> docs) {
    List<String> out = new ArrayList<>();
    Set<String> releases = new TreeSet<>();
    for (Doc d : docs) {
      if (d.apiVersion().startsWith("monitoring.coreos.com/")) {
        String release = str(at(d.body(), "metadata", "labels", "release"));
        if (release.isBlank()) {
          out.add(d.kind() + " " + d.name() + " has no release label: Prometheus would ignore it");
        } else {
          releases.add(release);
        }
      }
    }
    if (releases.size() > 1) {
      out.add("the monitoring objects must carry the same release label, have " + releases);
    }
    return out;
  }

  /**
   * A ScaledObject scales on the lag of the service's own consumer group and topic, through the
   * service's Kafka listener and credentials, and never beyond AMBER_SERVICE_REPLICAS (partitions:
   * K8sManifestsTest.engineProblems; target and minimum: selectionProblems).
   */
  static List<String> kedaProblems(List<Doc> docs) {
    List<String> out = new ArrayList<>();
    Properties props = appProperties();
    Map<String, Object> config = configData(docs);
    int serviceReplicas = Integer.parseInt(str(config.getOrDefault("AMBER_SERVICE_REPLICAS", "1")));
    Object fixed = at(find(docs, "Deployment").body(), "spec", "replicas");
    if (fixed instanceof Number r && r.intValue() > serviceReplicas) {
      out.add("spec.replicas " + r + " exceeds AMBER_SERVICE_REPLICAS " + serviceReplicas);
    }
    for (Doc so : docs.stream().filter(d -> d.kind().equals("ScaledObject")).toList()) {
      String n = "ScaledObject " + so.name() + ": ";
      if (K8sManifestsTest.maxReplicas(so) > serviceReplicas) {
        out.add(
            n
                + "maxReplicaCount "
                + K8sManifestsTest.maxReplicas(so)
                + " exceeds AMBER_SERVICE_REPLICAS "
                + serviceReplicas);
      }
      List<Object> kafka =
          list(at(so.body(), "spec", "triggers")).stream()
              .filter(t -> "kafka".equals(at(t, "type")))
              .toList();
      if (kafka.size() != 1) {
        out.add(n + "needs exactly one kafka trigger (the consumer lag)");
        continue;
      }
      Object trigger = kafka.get(0);
      Map<String, String> expected = new LinkedHashMap<>();
      expected.put("bootstrapServers", str(config.get("AMBER_KAFKA_BOOTSTRAP_SERVERS")));
      expected.put("consumerGroup", props.getProperty("kafka.group-id"));
      expected.put("topic", props.getProperty("kafka.topic"));
      if ("SASL_SSL".equals(config.get("AMBER_KAFKA_SECURITY_PROTOCOL"))) {
        expected.put("tls", "enable");
        expected.put(
            "sasl",
            str(config.get("AMBER_KAFKA_SASL_MECHANISM"))
                .toLowerCase(Locale.ROOT)
                .replace('-', '_')
                .replace("scram_sha_", "scram_sha"));
      }
      expected.forEach(
          (key, value) -> {
            if (!value.equals(str(at(trigger, "metadata", key)))) {
              out.add(
                  n
                      + "kafka trigger "
                      + key
                      + " must be "
                      + value
                      + ", is "
                      + at(trigger, "metadata", key));
            }
          });
      if (!str(at(trigger, "metadata", "lagThreshold")).matches("[1-9]\\d*")) {
        out.add(n + "kafka trigger needs a positive lagThreshold");
      }
      String auth = str(at(trigger, "authenticationRef", "name"));
      Doc ta = declared(docs, "TriggerAuthentication", auth);
      if (ta == null) {
        out.add(n + "kafka trigger's TriggerAuthentication " + auth + " is not declared");
        continue;
      }
      Set<String> parameters = new TreeSet<>();
      for (Object ref : list(at(ta.body(), "spec", "secretTargetRef"))) {
        parameters.add(str(at(ref, "parameter")));
        Set<String> keys =
            K8sManifestsTest.EXTERNAL_SECRETS.getOrDefault(str(at(ref, "name")), Set.of());
        if (!keys.contains(str(at(ref, "key")))) {
          out.add(
              "TriggerAuthentication "
                  + ta.name()
                  + " reads key "
                  + at(ref, "key")
                  + " of Secret "
                  + at(ref, "name")
                  + ", which the operator does not create");
        }
      }
      if (!parameters.containsAll(List.of("username", "password", "ca"))) {
        out.add("TriggerAuthentication " + ta.name() + " needs username, password and ca");
      }
    }
    return out;
  }

  // =================================================== helpers

  private static void expect(List<String> problems, String fragment) {
    assertThat(problems).as("after breaking %s", fragment).anyMatch(p -> p.contains(fragment));
  }

  private static List<String> metricsPort(Consumer<List<Doc>> breakIt) {
    return broken(Kustomize.PRODUCTION, breakIt, K8sOverlaysTest::metricsPortProblems);
  }

  private static List<String> memory(Consumer<List<Doc>> breakIt) {
    return broken(Kustomize.PRODUCTION, breakIt, K8sOverlaysTest::memoryProblems);
  }

  private static List<String> alerts(Consumer<List<Doc>> breakIt) {
    return broken(Kustomize.PRODUCTION, breakIt, K8sOverlaysTest::alertProblems);
  }

  private static List<String> configHash(Consumer<List<Doc>> breakIt) {
    return broken(Kustomize.PRODUCTION, breakIt, K8sOverlaysTest::configHashProblems);
  }

  private static List<String> releaseLabel(Consumer<List<Doc>> breakIt) {
    return broken(Kustomize.PRODUCTION, breakIt, K8sOverlaysTest::releaseLabelProblems);
  }

  private static List<String> keda(Consumer<List<Doc>> breakIt) {
    return broken(Kustomize.PRODUCTION_KEDA, breakIt, K8sOverlaysTest::kedaProblems);
  }

  private static List<String> broken(
      Path overlay, Consumer<List<Doc>> breakIt, Function<List<Doc>, List<String>> check) {
    List<Doc> docs = new ArrayList<>(load(overlay));
    assertThat(check.apply(docs)).as("before breaking anything").isEmpty();
    breakIt.accept(docs);
    return check.apply(docs);
  }

  private static void setJavaOptions(List<Doc> docs, String kind, Function<String, String> edit) {
    list(firstContainer(find(docs, kind).body()).get("env")).stream()
        .map(K8sManifestsTest::map)
        .filter(e -> "JAVA_TOOL_OPTIONS".equals(e.get("name")))
        .forEach(e -> e.put("value", edit.apply(str(e.get("value")))));
  }

  private static List<Map<String, Object>> rules(List<Doc> docs) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Object g : list(at(find(docs, "PrometheusRule").body(), "spec", "groups"))) {
      list(at(g, "rules")).forEach(r -> out.add(map(r)));
    }
    return out;
  }

  private static Map<String, Object> kafkaTrigger(List<Doc> docs) {
    return map(
        at(
            list(at(find(docs, "ScaledObject").body(), "spec", "triggers")).stream()
                .filter(t -> "kafka".equals(at(t, "type")))
                .findFirst()
                .orElseThrow(),
            "metadata"));
  }

  private static String envFromName(Doc workload) {
    List<Object> from = list(firstContainer(workload.body()).get("envFrom"));
    return from.isEmpty() ? "" : str(at(from.get(0), "configMapRef", "name"));
  }

  private static boolean selects(Object selector, Map<String, Object> labels) {
    return selector instanceof Map<?, ?> s
        && !s.isEmpty()
        && s.entrySet().stream()
            .allMatch(e -> Objects.equals(labels.get(String.valueOf(e.getKey())), e.getValue()));
  }

  /** -XX:+UseZGC and -XX:-UseZGC are one flag; -Dx=y is named -Dx. */
  static String flagName(String flag) {
    int eq = flag.indexOf('=');
    String name = eq < 0 ? flag : flag.substring(0, eq);
    if (name.startsWith("-Xmx") || name.startsWith("-Xms") || name.startsWith("-Xss")) {
      return name.substring(0, 4);
    }
    return name.replace("-XX:+", "-XX:").replace("-XX:-", "-XX:");
  }

  /** The jib entrypoint's arguments in pom.xml: the image's own JVM flags. */
  static List<String> imageEntrypoint() {
    try {
      String pom = Files.readString(POM, StandardCharsets.UTF_8);
      Matcher block =
          Pattern.compile("<entrypoint>(.*?)</entrypoint>", Pattern.DOTALL).matcher(pom);
      assertThat(block.find()).as("a jib <entrypoint> in pom.xml").isTrue();
      List<String> args = new ArrayList<>();
      Matcher arg = Pattern.compile("<arg>([^<]*)</arg>").matcher(block.group(1));
      while (arg.find()) {
        args.add(arg.group(1).trim());
      }
      return args;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A JVM size: bytes, or with k, m or g (any case), as -XX:MaxDirectMemorySize takes it. */
  static long jvmSize(String text) {
    Matcher m = Pattern.compile("(\\d+)([kKmMgG]?)").matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a JVM size: '" + text + "'");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "k" -> n << 10;
      case "m" -> n << 20;
      case "g" -> n << 30;
      default -> n;
    };
  }

  /** A Kubernetes memory quantity: bytes, binary (Ki, Mi, Gi) or decimal (k, M, G) suffixes. */
  static long quantity(String text) {
    Matcher m = Pattern.compile("(\\d+)(Ki|Mi|Gi|Ti|k|M|G|T)?").matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a memory quantity: '" + text + "'");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "" : m.group(2);
    return switch (unit) {
      case "Ki" -> n << 10;
      case "Mi" -> n << 20;
      case "Gi" -> n << 30;
      case "Ti" -> n << 40;
      case "k" -> n * 1_000L;
      case "M" -> n * 1_000_000L;
      case "G" -> n * 1_000_000_000L;
      case "T" -> n * 1_000_000_000_000L;
      default -> n;
    };
  }

  private static Properties appProperties() {
    try {
      Properties p = new Properties();
      p.load(new StringReader(Files.readString(Path.of("conf/amber.properties"))));
      return p;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<Doc> docsOf(String rendered, String source) {
    List<Map<String, Object>> bodies = K8sManifestsTest.parseStrict(rendered, source);
    List<Doc> out = new ArrayList<>();
    for (int i = 0; i < bodies.size(); i++) {
      out.add(new Doc(Path.of(source), i, bodies.get(i)));
    }
    return out;
  }

  /** Every document of a source file, with duplicate keys refused (lists allowed: JSON patches). */
  private static void strictLoad(Path file) throws IOException {
    LoaderOptions options = new LoaderOptions();
    options.setAllowDuplicateKeys(false);
    Yaml yaml = new Yaml(new SafeConstructor(options));
    try {
      for (Object ignored : yaml.loadAll(Files.readString(file, StandardCharsets.UTF_8))) {
        // parsing is the check
      }
    } catch (RuntimeException e) {
      throw new AssertionError(file + ": " + e.getMessage(), e);
    }
  }

  /** The files and directories a kustomization.yaml names, resolved against its directory. */
  private static Set<Path> referencedFiles(Path kustomization) throws IOException {
    Path dir = kustomization.getParent();
    Map<String, Object> k = map(strictSingle(kustomization));
    Set<Path> out = new TreeSet<>();
    List<Object> names = new ArrayList<>();
    names.addAll(list(k.get("resources")));
    names.addAll(list(k.get("components")));
    for (Object patch : list(k.get("patches"))) {
      if (at(patch, "path") != null) {
        names.add(at(patch, "path"));
      }
    }
    for (Object generator : list(k.get("configMapGenerator"))) {
      names.addAll(list(at(generator, "envs")));
      for (Object f : list(at(generator, "files"))) {
        String s = str(f);
        names.add(s.contains("=") ? s.substring(s.indexOf('=') + 1) : s);
      }
    }
    for (Object name : names) {
      Path p = dir.resolve(str(name)).normalize();
      if (Files.isRegularFile(p)) {
        out.add(p);
      }
    }
    return out;
  }

  private static Object strictSingle(Path file) throws IOException {
    LoaderOptions options = new LoaderOptions();
    options.setAllowDuplicateKeys(false);
    return new Yaml(new SafeConstructor(options))
        .load(Files.readString(file, StandardCharsets.UTF_8));
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> walk = Files.walk(from)) {
      for (Path p : walk.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }

  /** The PodMonitor's first scrape endpoint, for a breakage case to change. */
  private static Map<String, Object> firstMetricsEndpoint(List<Doc> docs) {
    return map(list(at(find(docs, "PodMonitor").body(), "spec", "podMetricsEndpoints")).get(0));
  }
}
