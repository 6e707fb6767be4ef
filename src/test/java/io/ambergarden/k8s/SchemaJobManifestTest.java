package io.ambergarden.k8s;

import static io.ambergarden.k8s.K8sManifestsTest.at;
import static io.ambergarden.k8s.K8sManifestsTest.find;
import static io.ambergarden.k8s.K8sManifestsTest.firstContainer;
import static io.ambergarden.k8s.K8sManifestsTest.list;
import static io.ambergarden.k8s.K8sManifestsTest.loadAll;
import static io.ambergarden.k8s.K8sManifestsTest.map;
import static io.ambergarden.k8s.K8sManifestsTest.str;
import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.config.ConfigLoader;
import io.ambergarden.k8s.K8sManifestsTest.Doc;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Schema comes from one applier: the Job in k8s/base/schema-job.yaml runs the {@code schema}
 * command with the pods' configuration and image, one pod at a time, under the same restricted
 * profile and network policy, while the pods themselves never apply schema. Each check is also
 * shown to catch its own breakage, so none passes vacuously.
 */
class SchemaJobManifestTest {

  @Test
  void oneJobAppliesTheSchemaAndThePodsNever() {
    assertThat(schemaProblems(loadAll())).isEmpty();
  }

  @Test
  void theJobsEnvironmentIsAValidConfigurationWithProductionReplication() {
    List<Doc> docs = loadAll();
    Doc job = find(docs, "Job");
    assertThat(K8sManifestsTest.envProblems(docs, job)).isEmpty();
    AmberConfig config =
        ConfigLoader.load(
            K8sManifestsTest.workloadEnvironment(docs, job), new Properties(), Map.of());
    assertThat(config.cassandra().replication())
        .isEqualTo("{'class': 'NetworkTopologyStrategy', 'dc1': 3}");
    AmberConfig pods =
        ConfigLoader.load(
            K8sManifestsTest.workloadEnvironment(docs, find(docs, "Deployment")),
            new Properties(),
            Map.of());
    assertThat(pods.cassandra().applySchema()).isFalse();
    assertThat(pods.cassandra().replication()).isEqualTo(config.cassandra().replication());
  }

  @Test
  void schemaChecksCatchEachWeakening() {
    expect(docs -> docs.removeIf(d -> d.kind().equals("Job")), "no Job");
    expect(docs -> configData(docs).remove("AMBER_CASSANDRA_SCHEMA_APPLY"), "SCHEMA_APPLY");
    expect(docs -> configData(docs).put("AMBER_CASSANDRA_SCHEMA_APPLY", "true"), "SCHEMA_APPLY");
    expect(docs -> jobContainer(docs).put("args", List.of("serve")), "args");
    expect(docs -> jobSpec(docs).put("parallelism", 2), "parallelism");
    expect(docs -> jobSpec(docs).remove("backoffLimit"), "backoffLimit");
    expect(docs -> jobSpec(docs).remove("activeDeadlineSeconds"), "activeDeadlineSeconds");
    expect(docs -> jobPod(docs).put("restartPolicy", "Always"), "restartPolicy");
    expect(docs -> jobContainer(docs).put("image", "other:1"), "image");
    expect(docs -> list(jobContainer(docs).get("envFrom")).clear(), "ConfigMap");
    expect(
        docs -> map(at(jobContainer(docs), "securityContext")).put("readOnlyRootFilesystem", false),
        "readOnlyRootFilesystem");
    expect(docs -> jobPod(docs).put("automountServiceAccountToken", true), "automount");
    expect(
        docs -> map(jobPod(docs).get("securityContext")).put("runAsNonRoot", false),
        "runAsNonRoot");
    expect(
        docs -> map(at(jobContainer(docs), "resources", "limits")).remove("memory"),
        "limits.memory");
    expect(
        docs ->
            map(at(find(docs, "Job").body(), "spec", "template", "metadata", "labels"))
                .put("app.kubernetes.io/name", "amber-garden"),
        "selects the Job");
    expect(
        docs ->
            map(at(find(docs, "Job").body(), "spec", "template", "metadata", "labels"))
                .remove("app.kubernetes.io/part-of"),
        "NetworkPolicy");
  }

  static List<String> schemaProblems(List<Doc> docs) {
    List<String> out = new ArrayList<>();
    List<Doc> jobs = docs.stream().filter(d -> d.kind().equals("Job")).toList();
    if (jobs.size() != 1) {
      out.add("no Job, or more than one: exactly one schema applier");
      return out;
    }
    String apply = str(K8sManifestsTest.configData(docs).get("AMBER_CASSANDRA_SCHEMA_APPLY"));
    if (!"false".equals(apply)) {
      out.add("ConfigMap must set AMBER_CASSANDRA_SCHEMA_APPLY=false: pods never run DDL");
    }
    Map<String, Object> job = jobs.get(0).body();
    Map<String, Object> spec = map(job.get("spec"));
    if (!Objects.equals(spec.get("parallelism"), 1)
        || !Objects.equals(spec.get("completions"), 1)) {
      out.add("parallelism and completions must be 1: one applier at a time");
    }
    if (!(spec.get("backoffLimit") instanceof Number)) {
      out.add("backoffLimit must be set (retries re-run idempotent DDL)");
    }
    if (!(spec.get("activeDeadlineSeconds") instanceof Number)) {
      out.add("activeDeadlineSeconds must bound the Job");
    }
    Map<String, Object> pod = map(at(job, "spec", "template", "spec"));
    if (!List.of("Never", "OnFailure").contains(str(pod.get("restartPolicy")))) {
      out.add("restartPolicy must be Never or OnFailure");
    }
    if (!Boolean.FALSE.equals(pod.get("automountServiceAccountToken"))) {
      out.add("automountServiceAccountToken must be false");
    }
    if (!Boolean.TRUE.equals(at(pod, "securityContext", "runAsNonRoot"))
        || !"RuntimeDefault".equals(at(pod, "securityContext", "seccompProfile", "type"))) {
      out.add("pod securityContext must set runAsNonRoot and seccompProfile RuntimeDefault");
    }
    Map<String, Object> c = firstContainer(job);
    Map<String, Object> depContainer = firstContainer(find(docs, "Deployment").body());
    if (!List.of("schema").equals(c.get("args"))) {
      out.add("the container's args must be [schema], is " + c.get("args"));
    }
    if (!Objects.equals(c.get("image"), depContainer.get("image"))) {
      out.add("image must be the Deployment's (" + depContainer.get("image") + ")");
    }
    if (!Objects.equals(c.get("envFrom"), depContainer.get("envFrom"))) {
      out.add("envFrom must be the Deployment's ConfigMap");
    }
    if (!Boolean.FALSE.equals(at(c, "securityContext", "allowPrivilegeEscalation"))
        || !Boolean.TRUE.equals(at(c, "securityContext", "readOnlyRootFilesystem"))
        || !list(at(c, "securityContext", "capabilities", "drop")).contains("ALL")) {
      out.add(
          "container securityContext: allowPrivilegeEscalation false, readOnlyRootFilesystem"
              + " true, drop ALL");
    }
    for (String bound : List.of("requests", "limits")) {
      for (String r : List.of("cpu", "memory")) {
        if (at(c, "resources", bound, r) == null) {
          out.add("resources." + bound + "." + r + " missing");
        }
      }
    }
    Map<String, Object> podLabels = map(at(job, "spec", "template", "metadata", "labels"));
    for (Doc d : docs) {
      Object selector =
          switch (d.kind()) {
            case "Service" -> at(d.body(), "spec", "selector");
            case "PodDisruptionBudget", "Deployment" ->
                at(d.body(), "spec", "selector", "matchLabels");
            default -> null;
          };
      if (selector != null && selects(selector, podLabels)) {
        out.add(d.kind() + " " + d.name() + " selects the Job's pods");
      }
    }
    boolean covered = false;
    for (Doc np : docs.stream().filter(d -> d.kind().equals("NetworkPolicy")).toList()) {
      if (selects(at(np.body(), "spec", "podSelector", "matchLabels"), podLabels)) {
        Set<String> egress = new TreeSet<>();
        for (Object rule : list(at(np.body(), "spec", "egress"))) {
          for (Object p : list(at(rule, "ports"))) {
            egress.add(String.valueOf(at(p, "port")));
          }
        }
        covered = egress.containsAll(List.of("9042", "53"));
      }
    }
    if (!covered) {
      out.add("no NetworkPolicy selects the Job's pods with egress to Cassandra (9042) and DNS");
    }
    return out;
  }

  private static boolean selects(Object selector, Map<String, Object> labels) {
    return selector instanceof Map<?, ?> s
        && !s.isEmpty()
        && s.entrySet().stream()
            .allMatch(e -> Objects.equals(labels.get(String.valueOf(e.getKey())), e.getValue()));
  }

  private static void expect(Consumer<List<Doc>> breakIt, String fragment) {
    List<Doc> docs = new ArrayList<>(loadAll());
    breakIt.accept(docs);
    assertThat(schemaProblems(docs))
        .as("after breaking %s", fragment)
        .anyMatch(p -> p.contains(fragment));
  }

  /** The Job's or Deployment's environment with secrets as placeholders. */
  private static Map<String, Object> configData(List<Doc> docs) {
    return K8sManifestsTest.configData(docs);
  }

  private static Map<String, Object> jobSpec(List<Doc> docs) {
    return map(find(docs, "Job").body().get("spec"));
  }

  private static Map<String, Object> jobPod(List<Doc> docs) {
    return map(at(find(docs, "Job").body(), "spec", "template", "spec"));
  }

  private static Map<String, Object> jobContainer(List<Doc> docs) {
    return firstContainer(find(docs, "Job").body());
  }
}
