package io.ambergarden.localrt;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves a server's runtime classpath from Maven Central by running {@code mvn
 * dependency:build-classpath} on a tiny standalone pom. The result is cached in a file next to the
 * runtime data and resolved again only when the file is missing, older than the pom, or names a jar
 * that is gone from the local repository.
 */
final class MavenClasspath {
  private static final Logger LOG = LoggerFactory.getLogger(MavenClasspath.class);

  /** The first resolution downloads up to ~110 MB, so this is far longer than a server start. */
  private static final long RESOLVE_TIMEOUT_MINUTES = 15;

  /**
   * Two resolutions share one local repository; Maven 3.8 does not lock it, so they run one after
   * the other. Only the first run of a fresh machine pays for this.
   */
  private static final Object LOCK = new Object();

  private MavenClasspath() {}

  /**
   * @param pom the standalone pom declaring the server dependency
   * @param versionProperty the pom property holding the version, set with -D
   * @param cacheFile where the classpath is written / cached
   */
  static String resolve(Path pom, String versionProperty, String version, Path cacheFile) {
    if (!Files.isRegularFile(pom)) {
      throw new LocalRuntimeException(
          "Server pom "
              + pom
              + " not found. Set the system property "
              + "amber.project.dir (or AMBER_PROJECT_DIR) to the project directory holding src/dev/localrt.");
    }
    synchronized (LOCK) {
      try {
        if (isFresh(cacheFile, pom)) {
          return Files.readString(cacheFile).trim();
        }
        Files.createDirectories(cacheFile.getParent());
        Path log = cacheFile.resolveSibling(cacheFile.getFileName() + ".log");
        List<String> command =
            new ArrayList<>(
                List.of(
                    mvnExecutable(),
                    "-B",
                    "-q",
                    "-f",
                    pom.toString(),
                    "dependency:build-classpath",
                    "-Dmdep.outputFile=" + cacheFile,
                    "-Dmdep.includeScope=runtime",
                    "-D" + versionProperty + "=" + version));
        String repoLocal = System.getProperty("maven.repo.local");
        if (repoLocal != null && !repoLocal.isBlank()) {
          command.add("-Dmaven.repo.local=" + repoLocal);
        }
        LOG.info(
            "Resolving {} classpath with Maven (first run downloads the jars): {}",
            pom.getFileName(),
            String.join(" ", command));
        long t0 = System.nanoTime();
        Files.deleteIfExists(cacheFile);
        Process p =
            new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        p.getOutputStream().close();
        try {
          if (!p.waitFor(RESOLVE_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
            throw new LocalRuntimeException(
                "Maven did not resolve "
                    + pom
                    + " within "
                    + RESOLVE_TIMEOUT_MINUTES
                    + " min"
                    + LogTail.describe(log, 40));
          }
        } finally {
          p.destroyForcibly(); // no-op when it exited; kills it on timeout or interrupt
        }
        if (p.exitValue() != 0 || !Files.isRegularFile(cacheFile)) {
          throw new LocalRuntimeException(
              "Maven failed (exit "
                  + p.exitValue()
                  + ") resolving "
                  + pom
                  + LogTail.describe(log, 40));
        }
        LOG.info("Resolved {} in {} ms", pom.getFileName(), (System.nanoTime() - t0) / 1_000_000);
        return Files.readString(cacheFile).trim();
      } catch (IOException e) {
        throw new LocalRuntimeException(
            "Could not run Maven to resolve " + pom + ": " + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LocalRuntimeException("Interrupted while resolving " + pom, e);
      }
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
