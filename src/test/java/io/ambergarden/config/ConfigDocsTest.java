package io.ambergarden.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The configuration reference (docs/operations/configuration.md) must list every key the
 * application knows, with its variable and default.
 */
class ConfigDocsTest {
  @Test
  void theConfigurationReferenceListsEveryConfigKey() throws IOException {
    Properties defaults = new Properties();
    defaults.load(new StringReader(Files.readString(Path.of("conf/amber.properties"))));
    String reference = Files.readString(Path.of("docs/operations/configuration.md"));
    assertThat(defaults).isNotEmpty();
    for (String key : defaults.stringPropertyNames()) {
      String value = defaults.getProperty(key);
      String row =
          "| `"
              + key
              + "` | `"
              + ConfigLoader.envName(key)
              + "` | "
              + (value.isEmpty() ? "(empty)" : "`" + value + "`")
              + " |";
      assertThat(reference).as("configuration.md row for %s", key).contains(row);
    }
  }
}
