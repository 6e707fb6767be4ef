package io.ambergarden.bus;

import io.ambergarden.cassandra.TimeBuckets;
import io.ambergarden.event.Event;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one write request must count: its events grouped by (device, hour, type, status, code), each
 * with how many events it holds. This is the durable count record (count_journal.facts): the
 * counters are applied from it after the acknowledgement, so it keeps the facts rather than the
 * counter cells, which depend on settings.
 */
public final class CountFacts {
  /** The first byte of an encoded record: a later layout gets a new one. */
  static final byte VERSION = 1;

  /** One group of a request's events. */
  public record Fact(
      String deviceId, long hour, String deviceType, String status, Integer code, int events) {
    public Fact {
      Objects.requireNonNull(deviceId, "deviceId");
      if (events < 1) {
        throw new IllegalArgumentException("a fact counts at least one event");
      }
    }

    Key key() {
      return new Key(deviceId, hour, deviceType, status, code);
    }
  }

  private record Key(String deviceId, long hour, String deviceType, String status, Integer code) {}

  private CountFacts() {}

  /** The facts of a request's events; events repeated in the request count as often as sent. */
  public static List<Fact> of(List<Event> events) {
    Map<Key, Integer> groups = new LinkedHashMap<>();
    for (Event e : events) {
      Key k =
          new Key(e.deviceId(), TimeBuckets.hourOf(e.ts()), e.deviceType(), e.status(), e.code());
      groups.merge(k, 1, Integer::sum);
    }
    List<Fact> out = new ArrayList<>(groups.size());
    groups.forEach(
        (k, n) ->
            out.add(new Fact(k.deviceId(), k.hour(), k.deviceType(), k.status(), k.code(), n)));
    return out;
  }

  public static ByteBuffer encode(List<Fact> facts) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(32 + facts.size() * 32);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      out.writeInt(facts.size());
      for (Fact f : facts) {
        out.writeUTF(f.deviceId());
        out.writeLong(f.hour());
        writeNullable(out, f.deviceType());
        writeNullable(out, f.status());
        out.writeBoolean(f.code() != null);
        if (f.code() != null) {
          out.writeInt(f.code());
        }
        out.writeInt(f.events());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ByteBuffer.wrap(bytes.toByteArray());
  }

  /**
   * Decodes a journal record.
   *
   * @throws IllegalArgumentException for a record this version cannot read (never silently skipped:
   *     the caller decides)
   */
  public static List<Fact> decode(ByteBuffer blob) {
    ByteBuffer b = blob.duplicate();
    byte[] raw = new byte[b.remaining()];
    b.get(raw);
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(raw))) {
      byte version = in.readByte();
      if (version != VERSION) {
        throw new IllegalArgumentException("count record of unknown version " + version);
      }
      int n = in.readInt();
      if (n < 0 || n > raw.length) {
        throw new IllegalArgumentException("count record with a bad length " + n);
      }
      List<Fact> facts = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        String device = in.readUTF();
        long hour = in.readLong();
        String type = readNullable(in);
        String status = readNullable(in);
        Integer code = in.readBoolean() ? in.readInt() : null;
        facts.add(new Fact(device, hour, type, status, code, in.readInt()));
      }
      if (in.available() > 0) {
        throw new IllegalArgumentException("count record with trailing bytes");
      }
      return facts;
    } catch (IOException e) {
      throw new IllegalArgumentException("truncated count record", e);
    }
  }

  private static void writeNullable(DataOutputStream out, String s) throws IOException {
    out.writeBoolean(s != null);
    if (s != null) {
      out.writeUTF(s);
    }
  }

  private static String readNullable(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readUTF() : null;
  }
}
