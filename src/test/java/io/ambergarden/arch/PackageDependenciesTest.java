package io.ambergarden.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the main code's structure: files stay small, and package dependencies one-way: read from
 * the sources (imports and qualified names), they must form no cycle, and each package may use only
 * its own layer and the layers below it.
 */
class PackageDependenciesTest {
  private static final Path MAIN = Path.of("src/main/java/io/ambergarden");
  private static final String ROOT = "(root)";
  private static final int MAX_LINES = 400;
  private static final Pattern REFERENCE =
      Pattern.compile("\\bio\\.ambergarden\\.([a-z][a-z0-9]*)\\.[A-Z]");

  /**
   * Lower layers first. A new package must be placed here, which is the point: it is a design
   * decision.
   */
  private static final List<Set<String>> LAYERS =
      List.of(
          Set.of("event", "config", "metrics"),
          Set.of("bus", "cassandra", "kafka", "lease"),
          Set.of(
              "health", "write", "counter", "rollup", "query", "ingest", "live", "sim", "auth",
              "media"),
          Set.of("web"),
          Set.of(ROOT));

  @Test
  void mainPackagesFormNoCycle() {
    List<List<String>> cycles =
        stronglyConnected(dependencies()).stream().filter(c -> c.size() > 1).toList();
    assertThat(cycles)
        .as("package cycles (each list depends on itself through its members)")
        .isEmpty();
  }

  @Test
  void everyPackageUsesOnlyItsOwnLayerAndTheOnesBelow() {
    List<String> upward = new ArrayList<>();
    dependencies()
        .forEach(
            (from, targets) ->
                targets.forEach(
                    to -> {
                      if (layerOf(to) > layerOf(from)) {
                        upward.add(from + " -> " + to);
                      }
                    }));
    assertThat(upward)
        .as("dependencies that point up a layer (move the shared type down)")
        .isEmpty();
  }

  @Test
  void everyMainPackageHasALayer() {
    assertThat(dependencies().keySet())
        .allSatisfy(p -> assertThat(layerOf(p)).as(p).isGreaterThanOrEqualTo(0));
  }

  @Test
  void noMainSourceFileIsOverFourHundredLines() throws IOException {
    List<String> tooLong = new ArrayList<>();
    try (Stream<Path> files = Files.walk(MAIN)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        long lines = Files.readAllLines(f).size();
        if (lines > MAX_LINES) {
          tooLong.add(MAIN.relativize(f) + ": " + lines);
        }
      }
    }
    assertThat(tooLong).as("main files over " + MAX_LINES + " lines (split them by job)").isEmpty();
  }

  @Test
  void theCycleFinderFindsARing() {
    Map<String, Set<String>> ring =
        Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"), "d", Set.of("a"));
    assertThat(stronglyConnected(ring).stream().filter(c -> c.size() > 1).toList())
        .containsExactly(List.of("a", "b", "c"));
  }

  private static int layerOf(String pkg) {
    for (int i = 0; i < LAYERS.size(); i++) {
      if (LAYERS.get(i).contains(pkg)) {
        return i;
      }
    }
    return -1;
  }

  /** Package -> the other packages its sources name. */
  static Map<String, Set<String>> dependencies() {
    Map<String, Set<String>> deps = new TreeMap<>();
    try (Stream<Path> files = Files.walk(MAIN)) {
      files
          .filter(f -> f.toString().endsWith(".java"))
          .forEach(
              f -> {
                Path dir = MAIN.relativize(f.getParent());
                String pkg = dir.toString().isEmpty() ? ROOT : dir.toString().replace('/', '.');
                Set<String> targets = deps.computeIfAbsent(pkg, k -> new TreeSet<>());
                Matcher m = REFERENCE.matcher(read(f));
                while (m.find()) {
                  if (!m.group(1).equals(pkg)) {
                    targets.add(m.group(1));
                  }
                }
              });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return deps;
  }

  private static String read(Path f) {
    try {
      return Files.readString(f);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Tarjan's algorithm; each component sorted by name. */
  static List<List<String>> stronglyConnected(Map<String, Set<String>> graph) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new TreeSet<>();
    List<List<String>> out = new ArrayList<>();
    int[] counter = {0};
    for (String v : new TreeSet<>(graph.keySet())) {
      if (!index.containsKey(v)) {
        visit(v, graph, index, low, stack, onStack, out, counter);
      }
    }
    return out;
  }

  private static void visit(
      String v,
      Map<String, Set<String>> graph,
      Map<String, Integer> index,
      Map<String, Integer> low,
      Deque<String> stack,
      Set<String> onStack,
      List<List<String>> out,
      int[] counter) {
    index.put(v, counter[0]);
    low.put(v, counter[0]++);
    stack.push(v);
    onStack.add(v);
    for (String w : graph.getOrDefault(v, Set.of())) {
      if (!index.containsKey(w)) {
        visit(w, graph, index, low, stack, onStack, out, counter);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      List<String> component = new ArrayList<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        component.add(w);
      } while (!w.equals(v));
      component.sort(null);
      out.add(component);
    }
  }
}
