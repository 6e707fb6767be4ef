package io.ambergarden.media;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Tag text: normalised (Unicode NFC, lower case) so "Kamera" and "kamera" are one tag, and limited
 * to letters, digits, '.', '_' and '-' (1-64 characters), so any script works ("风景" is a tag) but a
 * tag can never smuggle separators, spaces or control characters. The month is a column of the
 * index's partition key, not glued to the tag text ("2024-01:风景"), so no tag can collide with
 * another tag's month.
 */
public final class ImageTags {
  public static final int MAX_LENGTH = 64;

  /** The tags, or the reason they were refused. */
  public record Parsed(List<String> tags, String error) {
    public boolean ok() {
      return error == null;
    }
  }

  private ImageTags() {}

  /** A comma-separated list (absent or empty: no tags), duplicates merged, order kept. */
  public static Parsed parse(String csv, int maxTags) {
    if (csv == null || csv.isBlank()) {
      return new Parsed(List.of(), null);
    }
    Set<String> out = new LinkedHashSet<>();
    for (String raw : csv.split(",", -1)) {
      String tag = normalize(raw);
      if (tag == null) {
        return new Parsed(
            List.of(),
            "each tag must be 1-"
                + MAX_LENGTH
                + " letters, digits, '.', '_' or '-' (comma-separated)");
      }
      out.add(tag);
    }
    if (out.size() > maxTags) {
      return new Parsed(List.of(), "at most " + maxTags + " tags per image");
    }
    return new Parsed(new ArrayList<>(out), null);
  }

  /** The normalised tag, or null when it is not valid tag text. */
  public static String normalize(String raw) {
    if (raw == null) {
      return null;
    }
    String tag = Normalizer.normalize(raw.strip(), Normalizer.Form.NFC).toLowerCase(Locale.ROOT);
    int length = tag.codePointCount(0, tag.length());
    if (length < 1 || length > MAX_LENGTH) {
      return null;
    }
    boolean ok =
        tag.codePoints()
            .allMatch(cp -> Character.isLetterOrDigit(cp) || cp == '.' || cp == '_' || cp == '-');
    return ok && !tag.equals(".") && !tag.equals("..") ? tag : null;
  }
}
