package io.ambergarden.localrt;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** The last lines of a (possibly large) log file, for failure messages. */
final class LogTail {
  /** Only the end of the file is read, so a big log does not cost much. */
  private static final int MAX_BYTES = 256 * 1024;

  private LogTail() {}

  static List<String> lastLines(Path file, int lines) {
    if (!Files.isRegularFile(file)) {
      return List.of();
    }
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
      long length = raf.length();
      int size = (int) Math.min(length, MAX_BYTES);
      byte[] bytes = new byte[size];
      raf.seek(length - size);
      raf.readFully(bytes);
      String[] all = new String(bytes, StandardCharsets.UTF_8).split("\r?\n", -1);
      int end = all.length;
      if (end > 0 && all[end - 1].isEmpty()) {
        end--; // the file ends with a newline
      }
      // when we started mid-file, the first line is probably cut: drop it
      int start = size < length ? 1 : 0;
      return Arrays.asList(all).subList(Math.max(start, end - lines), end);
    } catch (IOException e) {
      return List.of("(could not read " + file + ": " + e.getMessage() + ")");
    }
  }

  /** Formats the tail for an exception message. */
  static String describe(Path file, int lines) {
    return describe(file, lines, null);
  }

  /**
   * Like {@link #describe(Path, int)}, but leaves out lines up to and including the last line that
   * starts with runMarker: those belong to an earlier run appended to the same file.
   */
  static String describe(Path file, int lines, String runMarker) {
    List<String> tail = lastLines(file, lines);
    if (runMarker != null) {
      for (int i = tail.size() - 1; i >= 0; i--) {
        if (tail.get(i).startsWith(runMarker)) {
          tail = tail.subList(i + 1, tail.size());
          break;
        }
      }
    }
    if (tail.isEmpty()) {
      return "\n(" + file + " is empty or missing)";
    }
    return "\n--- last "
        + tail.size()
        + " lines of "
        + file
        + " ---\n"
        + String.join("\n", tail)
        + "\n--- end of "
        + file.getFileName()
        + " ---";
  }
}
