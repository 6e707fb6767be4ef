package io.ambergarden.bench;

import io.ambergarden.cassandra.TimeBuckets;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A deterministic set of realistic events: devices of a few types, three metrics, about 5%
 * abnormal.
 */
final class BenchEvents {
  static final String[] TYPES = {"charger", "meter", "pump", "valve", "sensor"};

  record Spec(
      String deviceId,
      String deviceType,
      long ts,
      String eventId,
      String status,
      int code,
      double temperature,
      double vibration,
      double current) {
    byte[] json() {
      return ("{\"deviceId\":\""
              + deviceId
              + "\",\"ts\":"
              + ts
              + ",\"eventId\":\""
              + eventId
              + "\",\"deviceType\":\""
              + deviceType
              + "\",\"status\":\""
              + status
              + "\",\"code\":"
              + code
              + ",\"metrics\":{\"temperature\":"
              + temperature
              + ",\"vibration\":"
              + vibration
              + ",\"current\":"
              + current
              + "}}")
          .getBytes(StandardCharsets.UTF_8);
    }

    Map<String, Double> metrics() {
      return Map.of("temperature", temperature, "vibration", vibration, "current", current);
    }

    boolean abnormal() {
      return code >= 500;
    }
  }

  private BenchEvents() {}

  private static final long HALF_HOUR = TimeBuckets.HOUR / 2;
  private static final int LATE_PERCENT = BenchSettings.latePercent();

  /**
   * An event time: with {@code latePercent} -1, within the last 30 minutes; else late (in the hour
   * that closed over an hour before now) with that probability, otherwise in the current hour, at
   * most 30 minutes back.
   */
  static long eventTime(SplittableRandom rnd, long now, int latePercent) {
    if (latePercent < 0) {
      return now - rnd.nextLong(HALF_HOUR);
    }
    long hourStart = TimeBuckets.hourOf(now);
    if (rnd.nextInt(100) < latePercent) {
      return hourStart - 2 * TimeBuckets.HOUR + rnd.nextLong(TimeBuckets.HOUR);
    }
    return now - rnd.nextLong(Math.min(HALF_HOUR, now - hourStart + 1));
  }

  /**
   * Events as a fixed-rate stream sends them: event {@code i} is stamped with the wall time it is
   * due ({@code startMillis + i / rate}), so each device's events are in time order, except a
   * {@code latePercent} share that arrives one to two hours late (into an hour already closed).
   */
  static List<Spec> streaming(
      String prefix,
      String eventPrefix,
      int count,
      int devices,
      long startMillis,
      double ratePerSecond,
      int latePercent,
      long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    List<Spec> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int d = rnd.nextInt(devices);
      boolean bad = rnd.nextInt(100) < 5;
      long due = startMillis + Math.round(i * 1000 / ratePerSecond);
      boolean late = rnd.nextInt(100) < latePercent;
      long ts = late ? due - TimeBuckets.HOUR - rnd.nextLong(TimeBuckets.HOUR) : due;
      out.add(spec(rnd, prefix, d, bad, ts, eventPrefix + i));
    }
    return out;
  }

  /**
   * {@code count} events over {@code devices} devices, event times spread over the last 30 minutes.
   */
  static List<Spec> generate(String prefix, int count, int devices, long now, long seed) {
    return generate(prefix, "e", count, devices, now, seed);
  }

  /**
   * As above, with event ids {@code eventPrefix + index}, so a second set for the same devices adds
   * new events.
   */
  static List<Spec> generate(
      String prefix, String eventPrefix, int count, int devices, long now, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    List<Spec> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int d = rnd.nextInt(devices);
      boolean bad = rnd.nextInt(100) < 5;
      long ts = eventTime(rnd, now, LATE_PERCENT);
      out.add(spec(rnd, prefix, d, bad, ts, eventPrefix + i));
    }
    return out;
  }

  /**
   * Device {@code d}'s event: its code and metrics drawn from {@code rnd} after its time, in the
   * order every generated set has always drawn them, so a seed gives the same events.
   */
  private static Spec spec(
      SplittableRandom rnd, String prefix, int d, boolean bad, long ts, String eventId) {
    return new Spec(
        prefix + "-" + d,
        TYPES[d % TYPES.length],
        ts,
        eventId,
        bad ? "fault" : "normal",
        bad ? 500 + rnd.nextInt(5) : 200,
        20 + rnd.nextDouble() * 20,
        rnd.nextDouble(),
        5 + rnd.nextDouble() * 10);
  }
}
