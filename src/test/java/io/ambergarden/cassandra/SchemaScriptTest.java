package io.ambergarden.cassandra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ambergarden.config.ConfigLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class SchemaScriptTest {

  @Test
  void placeholdersAreSubstitutedAndCommentsDropped() {
    SchemaScript s =
        SchemaScript.parse(
            "007_demo.cql",
            "-- a comment; with a semicolon\nCREATE TABLE ${keyspace}.t (k int PRIMARY KEY) WITH default_time_to_live = ${ttl};\n",
            Map.of("keyspace", "ks", "ttl", "60"));
    assertThat(s.version()).isEqualTo(7);
    assertThat(s.statements())
        .containsExactly("CREATE TABLE ks.t (k int PRIMARY KEY) WITH default_time_to_live = 60");
  }

  @Test
  void aMissingPlaceholderValueIsAnError() {
    assertThatThrownBy(() -> SchemaScript.parse("001_x.cql", "CREATE KEYSPACE ${nope}", Map.of()))
        .hasMessageContaining("${nope}");
  }

  @Test
  void theMigratorListsEveryFileOfTheSchemaFolderInOrder() throws IOException {
    try (Stream<Path> files = Files.list(Path.of("schema"))) {
      List<String> names =
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> n.endsWith(".cql"))
              .sorted()
              .toList();
      assertThat(SchemaMigrator.SCRIPTS).isEqualTo(names);
    }
  }

  @Test
  void everyShippedStatementIsIdempotentDdl() {
    var config = ConfigLoader.load(Map.of(), new Properties(), Map.of());
    for (SchemaScript s : SchemaMigrator.scripts(SchemaMigrator.placeholders(config))) {
      assertThat(s.statements())
          .allSatisfy(
              cql ->
                  assertThat(cql)
                      .containsPattern(
                          "^(CREATE (KEYSPACE|TABLE) IF NOT EXISTS|ALTER TABLE \\S+ ADD IF NOT"
                              + " EXISTS)"));
      assertThat(String.join(" ", s.statements()))
          .doesNotContain("${")
          .doesNotContain("ALLOW FILTERING");
    }
  }
}
