package io.ambergarden.bench;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * A dynamic AppCDS archive for service instances (Java 17): the first start runs with {@code
 * -XX:ArchiveClassesAtExit} and writes the archive when it exits; later starts map it with {@code
 * -XX:SharedArchiveFile} instead of loading and verifying every class from the jars. CDS refuses
 * non-empty directories on the classpath, so the class directories (target/classes, dev-classes)
 * are copied into jars under {@code dir} first; the archive is valid only with that exact
 * classpath, which this object holds.
 */
public final class ClassDataSharing {
  private final Path archive;
  private final String classpath;

  private ClassDataSharing(Path archive, String classpath) {
    this.archive = archive;
    this.classpath = classpath;
  }

  /** Jars the directories of {@code classpath} into {@code dir}; the archive goes there too. */
  public static ClassDataSharing in(Path dir, String classpath) throws IOException {
    Files.createDirectories(dir);
    List<String> entries = new ArrayList<>();
    int i = 0;
    for (String entry : classpath.split(File.pathSeparator)) {
      Path p = Path.of(entry);
      if (Files.isDirectory(p)) {
        Path jar = dir.resolve("classes-" + i++ + ".jar");
        jar(p, jar);
        entries.add(jar.toString());
      } else if (!entry.isBlank()) {
        entries.add(entry);
      }
    }
    Path archive = dir.resolve("instance.jsa");
    Files.deleteIfExists(archive); // made for an older classpath, or half-written by a killed JVM
    return new ClassDataSharing(archive, String.join(File.pathSeparator, entries));
  }

  /** The classpath instances must run with for the archive to apply. */
  public String classpath() {
    return classpath;
  }

  public Path archive() {
    return archive;
  }

  /** True once an instance has written the archive (at its exit). */
  public boolean archived() {
    try {
      return Files.isRegularFile(archive) && Files.size(archive) > 0;
    } catch (IOException e) {
      return false;
    }
  }

  /** The options of the one start that writes the archive when it exits. */
  public List<String> dumpOptions() {
    return List.of("-XX:ArchiveClassesAtExit=" + archive);
  }

  /** The options that map the archive; none until it is written. */
  public List<String> useOptions() {
    return useOptions(archived(), archive);
  }

  static List<String> useOptions(boolean archived, Path archive) {
    return archived ? List.of("-XX:SharedArchiveFile=" + archive) : List.of();
  }

  private static void jar(Path dir, Path jar) throws IOException {
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream jos = new JarOutputStream(out);
        Stream<Path> files = Files.walk(dir)) {
      for (Path f : (Iterable<Path>) files.sorted()::iterator) {
        if (Files.isRegularFile(f)) {
          jos.putNextEntry(
              new JarEntry(dir.relativize(f).toString().replace(File.separatorChar, '/')));
          Files.copy(f, jos);
          jos.closeEntry();
        }
      }
    }
  }
}
