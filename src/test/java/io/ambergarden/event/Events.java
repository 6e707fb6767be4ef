package io.ambergarden.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

/** Shared fixtures: a fixed clock and small builders (public for the read-reply tests). */
public final class Events {
  static final Instant NOW_INSTANT = Instant.parse("2026-07-15T00:00:00Z");
  public static final long NOW = NOW_INSTANT.toEpochMilli();
  static final Clock CLOCK = Clock.fixed(NOW_INSTANT, ZoneOffset.UTC);
  static final EventParser PARSER = new EventParser(EventLimits.defaults(), CLOCK);

  private Events() {}

  /** A valid minimal event plus {@code extra} members (already JSON, comma-free at the ends). */
  public static String ev(String extra) {
    return "{\"deviceId\":\"M-10086\",\"ts\":" + NOW + (extra.isEmpty() ? "" : "," + extra) + "}";
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static EventParser.BatchResult json(String body) {
    return PARSER.parseBatch(utf8(body), BodyFormat.JSON);
  }

  static EventParser.BatchResult ndjson(String body) {
    return PARSER.parseBatch(utf8(body), BodyFormat.NDJSON);
  }

  public static Event valid(String body) {
    EventParser.BatchResult r = json(body);
    assertThat(r.errors()).as("errors for %s", body).isEmpty();
    assertThat(r.events()).hasSize(1);
    return r.events().get(0);
  }

  static List<FieldError> errors(String body) {
    EventParser.BatchResult r = json(body);
    assertThat(r.ok()).as("expected errors for %s", body).isFalse();
    assertThat(r.events()).isEmpty();
    return r.errors();
  }

  /** The only error of a body holding one bad event. */
  static FieldError onlyError(String body) {
    List<FieldError> e = errors(body);
    assertThat(e).as("errors for %s", body).hasSize(1);
    return e.get(0);
  }
}
