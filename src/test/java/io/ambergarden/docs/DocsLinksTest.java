package io.ambergarden.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in README.md and docs/ reaches a file that exists (and, for a #fragment into
 * a Markdown page, a heading of it), so moving a page or renaming a section cannot leave a reader
 * at a dead end; and every alert has the runbook its runbook_url points at.
 */
class DocsLinksTest {
  private static final Pattern LINK =
      Pattern.compile("!?\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
  private static final Pattern FENCED = Pattern.compile("(?ms)^```.*?^```");
  private static final Pattern INLINE_CODE = Pattern.compile("`[^`\\n]*`");
  private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6}\\s+(.+?)\\s*$");
  private static final Pattern ALERT = Pattern.compile("(?m)^\\s*-\\s*alert:\\s*(\\S+)\\s*$");

  static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>(List.of(Path.of("README.md")));
    try (Stream<Path> files = Files.walk(Path.of("docs"))) {
      pages.addAll(files.filter(p -> p.toString().endsWith(".md")).sorted().toList());
    }
    return pages;
  }

  /** Link targets outside code: code shows commands and JSON, where brackets are not links. */
  static List<String> links(String markdown) {
    String prose = INLINE_CODE.matcher(FENCED.matcher(markdown).replaceAll("")).replaceAll("");
    List<String> out = new ArrayList<>();
    Matcher m = LINK.matcher(prose);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  /** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
  static String anchor(String heading) {
    return heading.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
  }

  static Set<String> anchors(Path page) throws IOException {
    String text = FENCED.matcher(Files.readString(page)).replaceAll("");
    Set<String> out = new TreeSet<>();
    Matcher m = HEADING.matcher(text);
    while (m.find()) {
      out.add(anchor(m.group(1)));
    }
    return out;
  }

  static List<String> brokenLinks(Path page) throws IOException {
    List<String> broken = new ArrayList<>();
    for (String link : links(Files.readString(page))) {
      if (link.matches("^[a-z][a-z0-9+.-]*:.*")) {
        continue; // http:, https:, mailto:
      }
      int hash = link.indexOf('#');
      String file = hash < 0 ? link : link.substring(0, hash);
      String fragment = hash < 0 ? "" : link.substring(hash + 1);
      Path target =
          file.isEmpty() ? page : page.toAbsolutePath().getParent().resolve(file).normalize();
      if (!Files.exists(target)) {
        broken.add(page + ": " + link + " (no such file)");
      } else if (!fragment.isEmpty()
          && target.toString().endsWith(".md")
          && !anchors(target).contains(fragment)) {
        broken.add(page + ": " + link + " (no such heading)");
      }
    }
    return broken;
  }

  @Test
  void everyRelativeLinkInTheDocsReachesAFileAndHeading() throws IOException {
    List<Path> pages = pages();
    assertThat(pages).as("README and the docs pages").hasSizeGreaterThan(20);
    List<String> broken = new ArrayList<>();
    for (Path page : pages) {
      broken.addAll(brokenLinks(page));
    }
    assertThat(broken).isEmpty();
  }

  @Test
  void theLinkCheckCatchesAMovedPageAndARenamedSection(@org.junit.jupiter.api.io.TempDir Path dir)
      throws IOException {
    Files.writeString(dir.resolve("target.md"), "# Title\n\n## A section: `mvn -Pchaos`\n");
    Path page = dir.resolve("page.md");
    Files.writeString(
        page,
        "[ok](target.md) [ok](target.md#a-section-mvn--pchaos) [web](https://example.com/x)\n"
            + "`[code](nowhere.md)`\n```\n[fenced](nowhere.md)\n```\n"
            + "[moved](gone.md) [renamed](target.md#old-section)\n");
    assertThat(brokenLinks(page))
        .containsExactly(
            page + ": gone.md (no such file)", page + ": target.md#old-section (no such heading)");
  }

  @Test
  void everyAlertHasItsRunbook() throws IOException {
    Set<String> alerts = new TreeSet<>();
    try (Stream<Path> files = Files.walk(Path.of("k8s"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
        String yaml = Files.readString(f);
        if (yaml.contains("kind: PrometheusRule")) {
          Matcher m = ALERT.matcher(yaml);
          while (m.find()) {
            alerts.add(m.group(1));
          }
        }
      }
    }
    assertThat(alerts).as("alerts in k8s/").hasSizeGreaterThan(10);
    Path runbooks = Path.of("docs/operations/runbooks");
    assertThat(
            alerts.stream()
                .filter(a -> !Files.isRegularFile(runbooks.resolve(a + ".md")))
                .collect(Collectors.toList()))
        .as("alerts without docs/operations/runbooks/<alert>.md")
        .isEmpty();
    String monitoring = Files.readString(Path.of("docs/operations/monitoring.md"));
    assertThat(alerts.stream().filter(a -> !monitoring.contains("runbooks/" + a + ".md")).toList())
        .as("alerts the monitoring page does not list")
        .isEmpty();
  }
}
