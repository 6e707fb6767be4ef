package io.ambergarden.web;

import io.ambergarden.event.EventLimits;
import io.ambergarden.event.TimestampParser;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.regex.Pattern;

/** Parses and validates query and path parameters; every failure is a 400 naming the parameter. */
public final class QueryParams {
  private static final Pattern DAY = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
  private static final int MAX_STATUS = EventLimits.defaults().maxStatusLength();

  private QueryParams() {}

  public static String id(String name, String value) {
    if (value == null || !ID.matcher(value).matches() || value.equals(".") || value.equals("..")) {
      throw ApiException.invalidParameter(name, "must be 1-128 characters of [A-Za-z0-9._:-]");
    }
    return value;
  }

  /** A status as events carry it: printable ASCII, at most as long as an event's status. */
  public static String status(String name, String value) {
    if (value == null
        || value.isEmpty()
        || value.length() > MAX_STATUS
        || !value.chars().allMatch(c -> c >= 0x20 && c <= 0x7E)) {
      throw ApiException.invalidParameter(
          name, "must be 1-" + MAX_STATUS + " printable ASCII characters");
    }
    return value;
  }

  /** {@code true} or {@code false}. */
  public static boolean bool(String name, String value) {
    if ("true".equals(value)) {
      return true;
    }
    if ("false".equals(value)) {
      return false;
    }
    throw ApiException.invalidParameter(name, "must be true or false");
  }

  public static int limit(String value, int defaultLimit, int maxLimit) {
    return intIn("limit", value, defaultLimit, 1, maxLimit);
  }

  /** An integer in [min, max]; {@code fallback} when absent. */
  public static int intIn(String name, String value, int fallback, int min, int max) {
    if (value == null) {
      return fallback;
    }
    try {
      int n = Integer.parseInt(value);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw ApiException.invalidParameter(name, "must be an integer in " + min + ".." + max);
  }

  /** A UTC day as YYYY-MM-DD; {@code fallback} when absent. */
  public static LocalDate day(String name, String value, LocalDate fallback) {
    if (value == null) {
      return fallback;
    }
    if (!DAY.matcher(value).matches()) {
      throw ApiException.invalidParameter(name, "must be a date as YYYY-MM-DD");
    }
    try {
      return LocalDate.parse(value);
    } catch (DateTimeParseException e) {
      throw ApiException.invalidParameter(name, "is not a valid date");
    }
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
