package io.ambergarden.arch;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import io.ambergarden.arch.fixture.Root;
import io.ambergarden.arch.fixture.bus.RendersJson;
import io.ambergarden.arch.fixture.config.UsesTheRoot;
import io.ambergarden.arch.fixture.counter.CounterCells;
import io.ambergarden.arch.fixture.event.UsesTheTopLayer;
import io.ambergarden.arch.fixture.query.Reader;
import io.ambergarden.arch.fixture.rollup.UsesASharedHelper;
import io.ambergarden.arch.fixture.web.Top;
import io.ambergarden.arch.fixture.web.live.Sockets;
import io.ambergarden.arch.fixture.web.read.UsesAnotherFeature;
import io.ambergarden.arch.fixture.write.Writer;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Each rule catches the fixture that breaks it, and passes the fixtures that keep it. */
class ArchitectureRulesTest {
  private static final String ROOT = "io.ambergarden.arch.fixture";

  @Test
  void aLowerLayerUsingAHigherOneIsCaught() {
    ArchRule rule = ArchitectureRules.layersPointDown(ROOT, ArchitectureRules.LAYERS);
    assertViolates(rule, classes(UsesTheTopLayer.class, Top.class), "UsesTheTopLayer");
    assertPasses(rule, classes(UsesASharedHelper.class, CounterCells.class, Top.class));
  }

  @Test
  void aPackageUsingTheCompositionRootIsCaught() {
    ArchRule rule = ArchitectureRules.nothingDependsOnTheRootPackage(ROOT);
    assertViolates(rule, classes(UsesTheRoot.class, Root.class), "UsesTheRoot");
    assertPasses(rule, classes(Root.class, Top.class));
  }

  @Test
  void aPackageCycleIsCaught() {
    ArchRule rule = ArchitectureRules.noPackageCycles(ROOT);
    assertViolates(rule, classes(Writer.class, Reader.class), "Cycle");
    assertPasses(rule, classes(UsesASharedHelper.class, CounterCells.class));
  }

  @Test
  void verticlePackagesCallingEachOtherAreCaughtUnlessTheTargetIsASharedHelper() {
    ArchRule rule =
        ArchitectureRules.verticlePackagesMeetOnlyOnTheBus(
            ROOT, List.of("write", "query", "counter", "rollup"), Set.of("counter.CounterCells"));
    assertViolates(rule, classes(Writer.class, Reader.class), "Writer");
    assertPasses(rule, classes(UsesASharedHelper.class, CounterCells.class));
    ArchRule strict =
        ArchitectureRules.verticlePackagesMeetOnlyOnTheBus(
            ROOT, List.of("counter", "rollup"), Set.of());
    assertViolates(
        strict, classes(UsesASharedHelper.class, CounterCells.class), "UsesASharedHelper");
  }

  @Test
  void oneEdgeFeatureUsingAnotherIsCaught() {
    ArchRule rule = ArchitectureRules.edgeFeaturesAreIndependent(ROOT);
    assertViolates(rule, classes(UsesAnotherFeature.class, Sockets.class), "UsesAnotherFeature");
    assertPasses(rule, classes(Sockets.class, Top.class));
  }

  @Test
  void jsonInABusMessageIsCaught() {
    ArchRule rule = ArchitectureRules.busCarriesNoJson(ROOT);
    assertViolates(rule, classes(RendersJson.class), "JsonObject");
    assertPasses(rule, classes(UsesTheTopLayer.class, Top.class));
  }

  private static JavaClasses classes(Class<?>... types) {
    return new ClassFileImporter().importClasses(types);
  }

  private static void assertViolates(ArchRule rule, JavaClasses classes, String named) {
    EvaluationResult result = rule.evaluate(classes);
    assertThat(result.hasViolation()).as(rule.getDescription()).isTrue();
    assertThat(result.getFailureReport().toString()).contains(named);
  }

  private static void assertPasses(ArchRule rule, JavaClasses classes) {
    EvaluationResult result = rule.evaluate(classes);
    assertThat(result.hasViolation()).as(result.getFailureReport().toString()).isFalse();
  }
}
