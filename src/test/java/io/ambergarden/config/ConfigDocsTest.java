package io.ambergarden.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The README's config table must list every key the application knows, with its variable and
 * default.
 */
class ConfigDocsTest {
  @Test
  void readmeListsEveryConfigKey() throws IOException {
    Properties defaults = new Properties();
    defaults.load(new StringReader(Files.readString(Path.of("conf/amber.properties"))));
    String readme = Files.readString(Path.of("README.md"));
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
      assertThat(readme).as("README row for %s", key).contains(row);
    }
  }
}
