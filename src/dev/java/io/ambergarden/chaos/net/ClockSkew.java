package io.ambergarden.chaos.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A wall-clock offset for one process, by libfaketime (Debian packages faketime, libfaketime),
 * changeable while the process runs. Launch the process with {@link #env()}; {@link #set} rewrites
 * the offset file, which the process re-reads at most {@link #TAKES_EFFECT_WITHIN} later. Only the
 * wall clock moves: the monotonic clock stays real, so sleeps and timers keep their pace.
 */
public final class ClockSkew {
  /** Where Debian and Ubuntu install the library, by architecture. */
  static final List<Path> LIBRARY_CANDIDATES =
      List.of(
          Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
          Path.of("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"),
          Path.of("/usr/lib/faketime/libfaketime.so.1"));

  /**
   * libfaketime caches the offset for this long (FAKETIME_CACHE_DURATION). Measured with Java 17
   * and the environment below: a clock read costs about 0.1 µs cached, as without libfaketime, and
   * about 4 µs when the file is re-read on every call (FAKETIME_NO_CACHE).
   */
  public static final Duration TAKES_EFFECT_WITHIN = Duration.ofSeconds(1);

  private final Path file;
  private final Path library;
  private Duration offset;

  private ClockSkew(Path file, Path library) {
    this.file = file.toAbsolutePath();
    this.library = library;
  }

  /** A skew kept in {@code file}, starting at zero; the library found where Debian puts it. */
  public static ClockSkew file(Path file) {
    return file(
        file,
        findLibrary()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "libfaketime not found in "
                            + LIBRARY_CANDIDATES
                            + ": apt-get install faketime libfaketime")));
  }

  /** A skew kept in {@code file}, starting at zero, with the given libfaketime.so.1. */
  public static ClockSkew file(Path file, Path library) {
    ClockSkew skew = new ClockSkew(file, library);
    skew.set(Duration.ZERO);
    return skew;
  }

  public static Optional<Path> findLibrary() {
    return LIBRARY_CANDIDATES.stream().filter(Files::isRegularFile).findFirst();
  }

  /**
   * Moves the process's wall clock to real time plus {@code offset} (negative: behind), within
   * {@link #TAKES_EFFECT_WITHIN}. The file is replaced atomically: a reader never sees half.
   */
  public synchronized void set(Duration offset) {
    try {
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.createDirectories(file.getParent());
      Files.writeString(tmp, render(offset) + "\n", StandardCharsets.US_ASCII);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      this.offset = offset;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the clock skew to " + file, e);
    }
  }

  public synchronized Duration offset() {
    return offset;
  }

  public Path file() {
    return file;
  }

  /** The environment a process must start with to follow this skew. */
  public Map<String, String> env() {
    return Map.of(
        "LD_PRELOAD", library.toString(),
        "FAKETIME_TIMESTAMP_FILE", file.toString(),
        "FAKETIME_CACHE_DURATION", Long.toString(TAKES_EFFECT_WITHIN.toSeconds()),
        // a faked monotonic clock breaks JVM timers; the skew is of the wall clock only
        "FAKETIME_DONT_FAKE_MONOTONIC", "1",
        // without it, libfaketime 0.9.10 (Debian 12) turns every timed wait of the JVM into a
        // busy loop: an idle JVM burnt a whole core (10.3 s CPU in 10 s), a Cassandra node 15x the
        // CPU of its peers, and each clock read cost 2-4 µs; with it 0.1 s, and timers still right
        "FAKETIME_FORCE_MONOTONIC_FIX", "0");
  }

  /** libfaketime's relative form, to the millisecond: "+90.000s", "-1.250s". */
  static String render(Duration offset) {
    long millis = offset.toMillis();
    long abs = Math.abs(millis);
    return String.format("%s%d.%03ds", millis < 0 ? "-" : "+", abs / 1000, abs % 1000);
  }
}
