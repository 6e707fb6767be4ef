package io.ambergarden.cassandra;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One versioned CQL file: placeholder substitution and statement splitting, no I/O. */
public record SchemaScript(int version, String name, List<String> statements) {
  private static final Pattern FILE_NAME = Pattern.compile("(\\d{3})_([a-z0-9_]+)\\.cql");
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([a-z_]+)}");

  /** Parses {@code NNN_name.cql}; every ${placeholder} must have a value. */
  public static SchemaScript parse(String fileName, String text, Map<String, String> values) {
    Matcher m = FILE_NAME.matcher(fileName);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "schema file name must look like 001_name.cql: " + fileName);
    }
    StringBuilder substituted = new StringBuilder();
    Matcher p = PLACEHOLDER.matcher(stripComments(text));
    while (p.find()) {
      String value = values.get(p.group(1));
      if (value == null) {
        throw new IllegalArgumentException(fileName + ": no value for ${" + p.group(1) + "}");
      }
      p.appendReplacement(substituted, Matcher.quoteReplacement(value));
    }
    p.appendTail(substituted);
    List<String> statements = new ArrayList<>();
    for (String s : substituted.toString().split(";")) {
      String trimmed = s.strip();
      if (!trimmed.isEmpty()) {
        statements.add(trimmed);
      }
    }
    return new SchemaScript(Integer.parseInt(m.group(1)), m.group(2), List.copyOf(statements));
  }

  private static String stripComments(String text) {
    StringBuilder out = new StringBuilder();
    for (String line : text.split("\n", -1)) {
      int dash = line.indexOf("--");
      out.append(dash >= 0 ? line.substring(0, dash) : line).append('\n');
    }
    return out.toString();
  }
}
