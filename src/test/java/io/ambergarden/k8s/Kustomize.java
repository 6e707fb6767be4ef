package io.ambergarden.k8s;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Renders the kustomizations under k8s/ with {@code kubectl kustomize}, which is what {@code
 * kubectl apply -k} sends to the cluster, so the checks read what an operator installs rather than
 * the files one by one.
 */
final class Kustomize {
  static final Path K8S = Path.of("k8s");
  static final Path DEV = K8S.resolve("overlays/dev");
  static final Path PRODUCTION = K8S.resolve("overlays/production");
  static final Path PRODUCTION_KEDA = K8S.resolve("overlays/production-keda");
  static final Path ENGINES = K8S.resolve("engines");
  static final List<Path> OVERLAYS = List.of(DEV, PRODUCTION, PRODUCTION_KEDA);

  private static final Map<Path, String> RENDERED = new ConcurrentHashMap<>();

  private Kustomize() {}

  /** The multi-document YAML a kustomization renders to; rendered once per directory. */
  static String render(Path dir) {
    return RENDERED.computeIfAbsent(dir.toAbsolutePath().normalize(), Kustomize::renderNow);
  }

  /** Renders without the cache: for a copy of the tree that a test has changed. */
  static String renderNow(Path dir) {
    requireKubectl();
    try {
      File errors = File.createTempFile("kustomize-", ".err");
      errors.deleteOnExit();
      Process p =
          new ProcessBuilder("kubectl", "kustomize", dir.toString()).redirectError(errors).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("kubectl kustomize " + dir + " took over 60 s");
      }
      if (p.exitValue() != 0) {
        throw new AssertionError(
            "kubectl kustomize "
                + dir
                + " failed: "
                + Files.readString(errors.toPath(), StandardCharsets.UTF_8));
      }
      return out;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * kubectl (with its built-in kustomize) comes with the machine image. Where it is missing the
   * test is skipped with a message; CI must have it, so there a missing kubectl fails, as
   * DashboardIT does for chromium.
   */
  static void requireKubectl() {
    boolean present = kubectlOnPath();
    if (!present && System.getenv("CI") != null) {
      throw new IllegalStateException("CI must provide kubectl to render the k8s/ overlays");
    }
    Assumptions.assumeTrue(present, "install kubectl to render and check the k8s/ overlays");
  }

  private static boolean kubectlOnPath() {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(File.pathSeparator)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "kubectl"))) {
        return true;
      }
    }
    return false;
  }
}
