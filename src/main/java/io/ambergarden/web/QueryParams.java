package io.ambergarden.web;

import io.ambergarden.event.TimestampParser;
import java.util.regex.Pattern;

/** Parses and validates query and path parameters; every failure is a 400 naming the parameter. */
public final class QueryParams {
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

  private QueryParams() {
  }

  public static String id(String name, String value) {
    if (value == null || !ID.matcher(value).matches() || value.equals(".") || value.equals("..")) {
      throw ApiException.invalidParameter(name, "must be 1-128 characters of [A-Za-z0-9._:-]");
    }
    return value;
  }

  public static int limit(String value, int defaultLimit, int maxLimit) {
    if (value == null) {
      return defaultLimit;
    }
    try {
      int n = Integer.parseInt(value);
      if (n >= 1 && n <= maxLimit) {
        return n;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw ApiException.invalidParameter("limit", "must be an integer in 1.." + maxLimit);
  }

  /** Epoch millis or ISO-8601 with offset; {@code fallback} when absent. */
  public static long time(String name, String value, long fallback) {
    if (value == null) {
      return fallback;
    }
    TimestampParser.Result r = TimestampParser.parse(value);
    if (!r.ok()) {
      throw ApiException.invalidParameter(name, r.error());
    }
    return r.millis();
  }
}
