package io.ambergarden.arch;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The product's main classes keep the architecture the README states ({@link ArchitectureRules}).
 */
class ArchitectureTest {
  private static final String ROOT = "io.ambergarden";
  private static final int MAX_LINES = 400;
  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    // main classes only: not the tests, the dev tools (chaos, load) or the benchmarks
    main =
        new ClassFileImporter()
            .withImportOption(location -> location.contains("/target/classes/"))
            .importPackages(ROOT);
  }

  @Test
  void theImportSeesTheWholeProduct() {
    assertThat(main.contain(ROOT + ".AmberGarden")).isTrue();
    assertThat(main.contain(ROOT + ".web.read.ReadRoutes")).isTrue();
    assertThat(main.contain(ArchitectureTest.class.getName())).isFalse();
  }

  @Test
  void layersPointDown() {
    ArchitectureRules.layersPointDown(ROOT, ArchitectureRules.LAYERS).check(main);
  }

  @Test
  void everyPackageHasALayer() {
    Set<String> placed = new TreeSet<>();
    ArchitectureRules.LAYERS.forEach(placed::addAll);
    Set<String> unplaced = new TreeSet<>();
    main.forEach(
        c -> {
          String pkg = c.getPackageName();
          if (!pkg.equals(ROOT)) {
            String top = pkg.substring(ROOT.length() + 1).split("\\.")[0];
            if (!placed.contains(top)) {
              unplaced.add(top);
            }
          }
        });
    assertThat(unplaced).as("packages without a layer in ArchitectureRules.LAYERS").isEmpty();
  }

  @Test
  void nothingDependsOnTheCompositionRoot() {
    ArchitectureRules.nothingDependsOnTheRootPackage(ROOT).check(main);
  }

  @Test
  void packagesFormNoCycle() {
    ArchitectureRules.noPackageCycles(ROOT).check(main);
  }

  @Test
  void verticlePackagesMeetOnlyOnTheBus() {
    ArchitectureRules.verticlePackagesMeetOnlyOnTheBus(
            ROOT, ArchitectureRules.VERTICLE_PACKAGES, ArchitectureRules.SHARED_HELPERS)
        .check(main);
  }

  @Test
  void everySharedHelperExists() {
    assertThat(ArchitectureRules.SHARED_HELPERS)
        .allSatisfy(h -> assertThat(main.contain(ROOT + "." + h)).as(h).isTrue());
  }

  @Test
  void theEdgesFeaturesAreIndependent() {
    ArchitectureRules.edgeFeaturesAreIndependent(ROOT).check(main);
  }

  @Test
  void noMainSourceFileIsOverFourHundredLines() throws IOException {
    List<String> tooLong = new ArrayList<>();
    Path main = Path.of("src/main/java");
    try (Stream<Path> files = Files.walk(main)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        long lines = Files.readAllLines(f).size();
        if (lines > MAX_LINES) {
          tooLong.add(main.relativize(f) + ": " + lines);
        }
      }
    }
    assertThat(tooLong).as("main files over " + MAX_LINES + " lines (split them by job)").isEmpty();
  }

  @Test
  void theBusCarriesNoJson() {
    ArchitectureRules.busCarriesNoJson(ROOT).check(main);
  }
}
