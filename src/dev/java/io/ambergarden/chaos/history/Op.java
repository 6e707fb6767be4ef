package io.ambergarden.chaos.history;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * One history entry, as Jepsen keeps them: an invocation, or its completion ({@code ok}, {@code
 * fail}: did not happen, {@code info}: unknown outcome). {@code nanos} is monotonic time since the
 * run started; {@code process} the client worker; {@code slot} the instance it went to (-1 for the
 * broker). A post carries what it wrote; a read what it asked for and, once ok, what it saw.
 */
public record Op(
    long index,
    int process,
    Type type,
    Fn f,
    int slot,
    boolean direct,
    long nanos,
    List<Written> written,
    Read read,
    String outcome) {

  public enum Type {
    INVOKE,
    OK,
    FAIL,
    INFO
  }

  public enum Fn {
    /** HTTP POST of a batch. */
    POST,
    /** A record produced straight to the input topic. */
    KAFKA_SEND,
    /** GET of a device's latest state. */
    READ_LATEST
  }

  /** One event a post or send carried. */
  public record Written(String deviceId, long ts, String eventId) {}

  /** A read of a device's latest state; {@code eventId} null when none was served (404). */
  public record Read(String deviceId, String eventId, long ts) {
    public static Read of(String deviceId) {
      return new Read(deviceId, null, -1);
    }
  }

  public Op {
    written = written == null ? List.of() : List.copyOf(written);
  }

  public JsonObject toJson() {
    JsonObject o =
        new JsonObject()
            .put("index", index)
            .put("process", process)
            .put("type", type.name().toLowerCase())
            .put("f", f.name().toLowerCase())
            .put("slot", slot)
            .put("direct", direct)
            .put("time", nanos);
    if (!written.isEmpty()) {
      JsonArray w = new JsonArray();
      written.forEach(e -> w.add(new JsonArray().add(e.deviceId()).add(e.ts()).add(e.eventId())));
      o.put("written", w);
    }
    if (read != null) {
      o.put(
          "read",
          new JsonObject()
              .put("deviceId", read.deviceId())
              .put("eventId", read.eventId())
              .put("ts", read.ts()));
    }
    if (outcome != null) {
      o.put("outcome", outcome);
    }
    return o;
  }

  public static Op fromJson(JsonObject o) {
    List<Written> written = new ArrayList<>();
    JsonArray w = o.getJsonArray("written");
    if (w != null) {
      for (int i = 0; i < w.size(); i++) {
        JsonArray e = w.getJsonArray(i);
        written.add(new Written(e.getString(0), e.getLong(1), e.getString(2)));
      }
    }
    JsonObject r = o.getJsonObject("read");
    return new Op(
        o.getLong("index"),
        o.getInteger("process"),
        Type.valueOf(o.getString("type").toUpperCase()),
        Fn.valueOf(o.getString("f").toUpperCase()),
        o.getInteger("slot"),
        o.getBoolean("direct", false),
        o.getLong("time"),
        written,
        r == null
            ? null
            : new Read(r.getString("deviceId"), r.getString("eventId"), r.getLong("ts")),
        o.getString("outcome"));
  }

  /** This invocation's completion. */
  public Op complete(long index, Type type, long nanos, Read seen, String outcome) {
    return new Op(index, process, type, f, slot, direct, nanos, written, seen, outcome);
  }
}
