package io.ambergarden.arch;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.CompositeArchRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The architecture the README states, as ArchUnit rules over a root package, so the same rules run
 * against the product ({@link ArchitectureTest}) and against fixtures that break them ({@link
 * ArchitectureRulesTest}). Package names are relative to the root; a name covers its subpackages. A
 * rule about packages a fixture lacks checks nothing there; {@link ArchitectureTest} checks that
 * the product's import is whole.
 */
final class ArchitectureRules {
  private ArchitectureRules() {}

  /**
   * Lower layers first; the root package (the composition root) is above them all. A new package
   * must be placed here, which is the point: it is a design decision.
   */
  static final List<List<String>> LAYERS =
      List.of(
          List.of("event", "config", "metrics"),
          List.of("bus", "cassandra", "kafka", "lease"),
          List.of(
              "health", "write", "counter", "rollup", "query", "ingest", "live", "sim", "auth",
              "media"),
          List.of("web"));

  /** Packages that hold verticles; they talk over the event bus, not by calling each other. */
  static final List<String> VERTICLE_PACKAGES =
      List.of(
          "health", "write", "counter", "rollup", "query", "ingest", "live", "media", "sim", "web");

  /**
   * Plain classes of a verticle package that others may use directly: no verticle state behind
   * them, shared for a stated reason.
   */
  static final Set<String> SHARED_HELPERS =
      Set.of(
          // the process's readiness, fed by the probes and read by every front door
          "health.HealthState",
          // the writer marks hours dirty in the table the rollups own
          "rollup.RollupMarks",
          // a count cell's key, written by the journal and read by reconciliation and queries
          "counter.CounterCells",
          // the process-wide cap on live sockets, shared by the relay and the sockets
          "live.LiveConnections",
          // image bytes stream between the client and the bucket without passing the bus
          "media.BlobDownload",
          "media.BlobTransferException",
          "media.BlobUpload",
          "media.ImageTags",
          "media.ObjectKeys",
          "media.ObjectStore",
          "media.UploadRules");

  /** Every rule, for the product. */
  static ArchRule all(String root) {
    return CompositeArchRule.of(layersPointDown(root, LAYERS))
        .and(nothingDependsOnTheRootPackage(root))
        .and(noPackageCycles(root))
        .and(verticlePackagesMeetOnlyOnTheBus(root, VERTICLE_PACKAGES, SHARED_HELPERS))
        .and(edgeFeaturesAreIndependent(root))
        .and(busCarriesNoJson(root));
  }

  /** A package uses only its own layer and the layers below it. */
  static ArchRule layersPointDown(String root, List<List<String>> layers) {
    List<ArchRule> rules = new ArrayList<>();
    for (int i = 0; i < layers.size() - 1; i++) {
      List<String> above = new ArrayList<>();
      layers.subList(i + 1, layers.size()).forEach(above::addAll);
      rules.add(
          noClasses()
              .that()
              .resideInAnyPackage(packages(root, layers.get(i)))
              .should()
              .dependOnClassesThat()
              .resideInAnyPackage(packages(root, above))
              .as("layer " + layers.get(i) + " uses nothing of the layers above it " + above)
              .allowEmptyShould(true));
    }
    return CompositeArchRule.of(rules);
  }

  /** The root package wires everything together, so nothing may depend on it. */
  static ArchRule nothingDependsOnTheRootPackage(String root) {
    return noClasses()
        .that()
        .resideOutsideOfPackage(root)
        .and()
        .resideInAPackage(root + "..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(root)
        .as("nothing below the composition root (" + root + ") depends on it");
  }

  /** Each package, nested ones included, on its own: no cycle between any of them. */
  static ArchRule noPackageCycles(String root) {
    return slices().matching(root + ".(**)").should().beFreeOfCycles();
  }

  /** A verticle package uses another only through the bus, or one of the shared helpers. */
  static ArchRule verticlePackagesMeetOnlyOnTheBus(
      String root, List<String> verticlePackages, Set<String> sharedHelpers) {
    DescribedPredicate<JavaClass> shared =
        DescribedPredicate.describe(
            "a shared helper " + sharedHelpers,
            c ->
                sharedHelpers.stream()
                    .map(h -> root + "." + h)
                    .anyMatch(h -> c.getName().equals(h) || c.getName().startsWith(h + "$")));
    List<ArchRule> rules = new ArrayList<>();
    for (String p : verticlePackages) {
      List<String> others = verticlePackages.stream().filter(o -> !o.equals(p)).toList();
      rules.add(
          noClasses()
              .that()
              .resideInAPackage(root + "." + p + "..")
              .should()
              .dependOnClassesThat(resideInAnyPackage(packages(root, others)).and(not(shared)))
              .as(p + " meets the other verticle packages only on the bus")
              .allowEmptyShould(true));
    }
    return CompositeArchRule.of(rules);
  }

  /** The edge's features (web.ingest, web.read, ...) share only what web itself holds. */
  static ArchRule edgeFeaturesAreIndependent(String root) {
    return slices()
        .matching(root + ".web.(*)..")
        .should()
        .notDependOnEachOther()
        .as("the edge's features do not use each other");
  }

  /** The bus carries internal records; the API's JSON is rendered at the edge. */
  static ArchRule busCarriesNoJson(String root) {
    return noClasses()
        .that()
        .resideInAPackage(root + ".bus..")
        .should()
        .dependOnClassesThat(
            resideInAPackage("io.vertx.core.json..")
                .or(resideInAPackage("com.fasterxml.jackson..")))
        .as("bus messages carry no JSON (render the API's answers at the edge)")
        .allowEmptyShould(true);
  }

  private static String[] packages(String root, List<String> names) {
    return names.stream().map(n -> root + "." + n + "..").toArray(String[]::new);
  }
}
