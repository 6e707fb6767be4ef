package io.ambergarden.localrt;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves the servers' runtime classpaths from Maven Central by running {@code mvn
 * dependency:build-classpath} on tiny standalone poms (src/dev/localrt/NAME-pom.xml), all of them
 * in one Maven call: the reactor of {@code servers-pom.xml}, one thread per server. Each result is
 * cached in a file next to the runtime data and resolved again only when the file is missing, older
 * than its pom, or names a jar that is gone from the local repository.
 */
final class MavenClasspath {
  private static final Logger LOG = LoggerFactory.getLogger(MavenClasspath.class);

  /** The first resolution downloads up to ~110 MB, so this is far longer than a server start. */
  private static final long RESOLVE_TIMEOUT_MINUTES = 15;

  /** The reactor listing every server pom as a module. */
  static final String REACTOR_POM = "servers-pom.xml";

  /**
   * One Maven call at a time in this JVM: a server asking while a call resolves it waits, then
   * finds its file fresh.
   */
  private static final Object LOCK = new Object();

  private MavenClasspath() {}

  /**
   * One server's classpath: {@code src/dev/localrt/NAME-pom.xml} (artifactId {@code localrt-NAME})
   * at {@code version}, which the pom reads from {@code versionProperty}; cached in {@code
   * <base>/NAME-VERSION.classpath}, the file the pom writes to ({@code NAME.classpath.file}).
   */
  record Spec(String name, Path pom, String versionProperty, String version, Path cacheFile) {
    static Spec of(LocalRuntimeOptions options, String name, String versionProperty, String v) {
      return new Spec(
          name,
          MavenClasspath.pom(options, name + "-pom.xml"),
          versionProperty,
          v,
          options.baseDir().resolve(name + "-" + v + ".classpath"));
    }

    String artifactId() {
      return "localrt-" + name;
    }

    /** The -D arguments this server's module of the reactor reads. */
    List<String> properties() {
      return List.of(
          "-D" + versionProperty + "=" + version, "-D" + name + ".classpath.file=" + cacheFile);
    }
  }

  /** The classpath of one server, resolving it first if its cache is not fresh. */
  static String resolve(Spec spec) {
    resolveAll(List.of(spec));
    try {
      return Files.readString(spec.cacheFile()).trim();
    } catch (IOException e) {
      throw new LocalRuntimeException("Could not read " + spec.cacheFile() + ": " + e, e);
    }
  }

  /** Resolves every server whose cache is not fresh, in one Maven call; a no-op when all are. */
  static void resolveAll(List<Spec> specs) {
    synchronized (LOCK) {
      try {
        Set<Spec> stale = new LinkedHashSet<>();
        for (Spec spec : specs) {
          requirePom(spec.pom());
          if (!isFresh(spec.cacheFile(), spec.pom())) {
            stale.add(spec);
          }
        }
        if (!stale.isEmpty()) {
          runMaven(List.copyOf(stale));
        }
      } catch (IOException e) {
        throw new LocalRuntimeException("Could not run Maven to resolve " + specs + ": " + e, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LocalRuntimeException("Interrupted while resolving " + specs, e);
      }
    }
  }

  /** The Maven command resolving {@code stale}: their modules of the reactor, one thread each. */
  static List<String> command(Path reactorPom, List<Spec> stale) {
    List<String> command =
        new ArrayList<>(
            List.of(
                mvnExecutable(),
                "-B",
                "-q",
                "-T",
                Integer.toString(stale.size()),
                "-f",
                reactorPom.toString(),
                "-pl",
                stale.stream().map(s -> ":" + s.artifactId()).collect(Collectors.joining(",")),
                "dependency:build-classpath",
                "-Dmdep.includeScope=runtime"));
    stale.forEach(s -> command.addAll(s.properties()));
    String repoLocal = System.getProperty("maven.repo.local");
    if (repoLocal != null && !repoLocal.isBlank()) {
      command.add("-Dmaven.repo.local=" + repoLocal);
    }
    return command;
  }

  private static void runMaven(List<Spec> stale) throws IOException, InterruptedException {
    Path reactorPom = stale.get(0).pom().resolveSibling(REACTOR_POM);
    requirePom(reactorPom);
    Path baseDir = stale.get(0).cacheFile().getParent();
    Files.createDirectories(baseDir);
    Path log = baseDir.resolve("maven-resolve.log");
    List<String> command = command(reactorPom, stale);
    String names = stale.stream().map(Spec::name).collect(Collectors.joining(", "));
    LOG.info(
        "Resolving the {} classpath(s) with Maven (first run downloads the jars): {}",
        names,
        String.join(" ", command));
    long t0 = System.nanoTime();
    for (Spec s : stale) {
      Files.deleteIfExists(s.cacheFile());
    }
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    p.getOutputStream().close();
    try {
      if (!p.waitFor(RESOLVE_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
        throw new LocalRuntimeException(
            "Maven did not resolve "
                + names
                + " within "
                + RESOLVE_TIMEOUT_MINUTES
                + " min"
                + LogTail.describe(log, 40));
      }
    } finally {
      p.destroyForcibly(); // no-op when it exited; kills it on timeout or interrupt
    }
    List<Path> missing =
        stale.stream().map(Spec::cacheFile).filter(f -> !Files.isRegularFile(f)).toList();
    if (p.exitValue() != 0 || !missing.isEmpty()) {
      throw new LocalRuntimeException(
          "Maven failed (exit "
              + p.exitValue()
              + ") resolving "
              + names
              + (missing.isEmpty() ? "" : ", no " + missing)
              + LogTail.describe(log, 40));
    }
    LOG.info("Resolved {} in {} ms", names, (System.nanoTime() - t0) / 1_000_000);
  }

  private static void requirePom(Path pom) {
    if (!Files.isRegularFile(pom)) {
      throw new LocalRuntimeException(
          "Server pom "
              + pom
              + " not found. Set the system property "
              + "amber.project.dir (or AMBER_PROJECT_DIR) to the project directory holding src/dev/localrt.");
    }
  }

  static boolean isFresh(Path cacheFile, Path pom) throws IOException {
    if (!Files.isRegularFile(cacheFile)
        || Files.getLastModifiedTime(cacheFile).compareTo(Files.getLastModifiedTime(pom)) < 0) {
      return false;
    }
    String cp = Files.readString(cacheFile).trim();
    return !cp.isEmpty()
        && Arrays.stream(cp.split(File.pathSeparator)).allMatch(j -> Files.exists(Path.of(j)));
  }

  /** {@code maven.home} is set by exec:java and passed on by failsafe; else mvn from PATH. */
  static String mvnExecutable() {
    String home = System.getProperty("maven.home");
    if (home != null && !home.isBlank()) {
      Path mvn = Path.of(home, "bin", "mvn");
      if (Files.isExecutable(mvn)) {
        return mvn.toString();
      }
    }
    return "mvn";
  }

  static Path pom(LocalRuntimeOptions options, String fileName) {
    return options.projectDir().resolve("src/dev/localrt").resolve(fileName);
  }
}
