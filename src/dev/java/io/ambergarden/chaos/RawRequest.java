package io.ambergarden.chaos;

import io.vertx.core.json.JsonArray;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The bytes of one ingest POST as a raw HTTP/1.1 request, and the points where a client fault cuts
 * it. {@code Connection: close}: one request per connection, so a cut never hits another request.
 */
record RawRequest(byte[] head, byte[] body) {
  static final String PATH = "/api/v1/events";
  static final String KEY_HEADER = "X-API-Key";

  /** The request of {@code batch} to {@code to}, authenticated with {@code apiKey}. */
  static RawRequest of(InetSocketAddress to, String apiKey, List<ChaosEvent> batch) {
    byte[] body = body(batch);
    return new RawRequest(head(hostHeader(to), apiKey, body.length), body);
  }

  /** The JSON array the workload posts. */
  static byte[] body(List<ChaosEvent> batch) {
    JsonArray a = new JsonArray();
    batch.forEach(e -> a.add(e.json()));
    return a.encode().getBytes(StandardCharsets.UTF_8);
  }

  static byte[] head(String host, String apiKey, int contentLength) {
    return ("POST "
            + PATH
            + " HTTP/1.1\r\n"
            + "Host: "
            + host
            + "\r\n"
            + KEY_HEADER
            + ": "
            + apiKey
            + "\r\n"
            + "Content-Type: application/json\r\n"
            + "Content-Length: "
            + contentLength
            + "\r\n"
            + "Connection: close\r\n"
            + "\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  static String hostHeader(InetSocketAddress to) {
    return to.getHostString() + ":" + to.getPort();
  }

  /** The same request to another address: the same body bytes, its own Host header. */
  RawRequest to(InetSocketAddress other, String apiKey) {
    return new RawRequest(head(hostHeader(other), apiKey, body.length), body);
  }

  /** The same request presenting {@code key} instead. */
  RawRequest withKey(InetSocketAddress to, String key) {
    return new RawRequest(head(hostHeader(to), key, body.length), body);
  }

  /** The head up to the middle of the key's value: the server never sees a whole header block. */
  byte[] headCutInKey() {
    String text = new String(head, StandardCharsets.US_ASCII);
    int value = text.indexOf(KEY_HEADER + ": ") + KEY_HEADER.length() + 2;
    int end = text.indexOf("\r\n", value);
    return Arrays.copyOf(head, value + (end - value) / 2);
  }

  /** The first half of the body: at least one byte, never all of it (bodies are 2+ bytes). */
  byte[] halfBody() {
    return Arrays.copyOf(body, Math.max(1, body.length / 2));
  }

  /** The body in {@code n} consecutive chunks of near-equal size (fewer when it is shorter). */
  List<byte[]> chunks(int n) {
    int parts = Math.max(1, Math.min(n, body.length));
    List<byte[]> out = new ArrayList<>(parts);
    for (int i = 0; i < parts; i++) {
      int from = (int) ((long) body.length * i / parts);
      int to = (int) ((long) body.length * (i + 1) / parts);
      out.add(Arrays.copyOfRange(body, from, to));
    }
    return out;
  }

  /** The status code of an HTTP/1.x status line, or -1 when it is not one. */
  static int status(String statusLine) {
    String[] parts = statusLine.trim().split(" ", 3);
    if (parts.length < 2 || !parts[0].startsWith("HTTP/1.") || parts[1].length() != 3) {
      return -1;
    }
    try {
      int code = Integer.parseInt(parts[1]);
      return code >= 100 && code <= 599 ? code : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
