package io.ambergarden.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * One way to prepare CQL: each verticle's statements sit in a {@code *Statements} holder with one
 * named field per statement, all prepared together at start. A statement taken by its position in a
 * list silently binds the wrong CQL when the list is reordered.
 */
class NamedStatementsTest {
  private static final Path MAIN = Path.of("src/main/java/io/ambergarden");
  private static final Pattern POSITIONAL =
      Pattern.compile("\\.get\\(\\d+\\)\\.result\\(\\)|\\bp\\[\\d+]|resultAt\\(\\d+\\)");
  private static final Pattern PREPARE = Pattern.compile("\\bclient\\.prepare\\(");

  @Test
  void noPreparedStatementIsTakenByItsPosition() {
    assertThat(matches(POSITIONAL, p -> true)).as("positional statements").isEmpty();
  }

  @Test
  void statementsArePreparedOnlyInTheStatementHolders() {
    assertThat(matches(PREPARE, p -> !p.getFileName().toString().endsWith("Statements.java")))
        .as("CQL prepared outside a *Statements holder")
        .isEmpty();
  }

  @Test
  void thePositionalPatternFindsTheOldShapes() {
    assertThat(POSITIONAL.matcher("prepared.get(3).result(),").find()).isTrue();
    assertThat(POSITIONAL.matcher("new X(p[0], p[1])").find()).isTrue();
    assertThat(POSITIONAL.matcher("cql = all.resultAt(0);").find()).isTrue();
    assertThat(POSITIONAL.matcher("insertKey.result(),").find()).isFalse();
  }

  private static List<String> matches(Pattern pattern, java.util.function.Predicate<Path> which) {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(MAIN)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).filter(which).toList()) {
        List<String> lines = Files.readAllLines(f);
        for (int i = 0; i < lines.size(); i++) {
          if (pattern.matcher(lines.get(i)).find()) {
            found.add(MAIN.relativize(f) + ":" + (i + 1) + ": " + lines.get(i).strip());
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return found;
  }
}
