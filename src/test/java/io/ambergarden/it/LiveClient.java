package io.ambergarden.it;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * A reading live-feed client that keeps every message, and raw sockets for clients that misbehave.
 */
public final class LiveClient implements AutoCloseable {
  private final List<JsonObject> messages = Collections.synchronizedList(new ArrayList<>());
  private final CompletableFuture<Integer> closed = new CompletableFuture<>();
  private final WebSocket ws;

  private LiveClient(URI uri, String authorization) {
    WebSocket.Builder builder =
        HttpClient.newHttpClient().newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5));
    if (authorization != null) {
      builder.header("Authorization", authorization);
    }
    ws =
        builder
            .buildAsync(
                uri,
                new WebSocket.Listener() {
                  private final StringBuilder partial = new StringBuilder();

                  @Override
                  public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                    partial.append(data);
                    if (last) {
                      messages.add(new JsonObject(partial.toString()));
                      partial.setLength(0);
                    }
                    w.request(1);
                    return null;
                  }

                  @Override
                  public CompletionStage<?> onClose(WebSocket w, int status, String reason) {
                    closed.complete(status);
                    return null;
                  }

                  @Override
                  public void onError(WebSocket w, Throwable error) {
                    closed.complete(-1);
                  }
                })
            .exceptionally(
                e -> {
                  if (e.getCause() instanceof java.net.http.WebSocketHandshakeException h) {
                    throw new IllegalStateException(
                        "live-feed handshake refused: "
                            + h.getResponse().statusCode()
                            + " "
                            + h.getResponse().body(),
                        h);
                  }
                  throw new java.util.concurrent.CompletionException(e);
                })
            .join();
  }

  /** Connects with the run's admin key, as a non-browser client does. */
  public static LiveClient connect(int port, String query) {
    return connect(port, query, "Bearer " + TestKeys.admin());
  }

  /** Connects with this Authorization header (null: none). */
  public static LiveClient connect(int port, String query, String authorization) {
    return new LiveClient(
        URI.create("ws://127.0.0.1:" + port + "/api/v1/live?" + query), authorization);
  }

  /** Event messages so far, in arrival order. */
  public List<JsonObject> events() {
    synchronized (messages) {
      return messages.stream()
          .filter(m -> "event".equals(m.getString("type")))
          .map(m -> m.getJsonObject("event"))
          .toList();
    }
  }

  public boolean sawType(String type) {
    synchronized (messages) {
      return messages.stream().anyMatch(m -> type.equals(m.getString("type")));
    }
  }

  public boolean isClosed() {
    return closed.isDone();
  }

  /** The close code the server sent, null while open (-1: closed without one). */
  public Integer closeCode() {
    return closed.getNow(null);
  }

  /**
   * Sends an upgrade request on a raw socket, with the run's admin key, and returns it unread: a
   * client that never reads.
   */
  public static Socket rawUpgrade(int port, String pathAndQuery, String origin) throws IOException {
    return rawUpgrade(port, pathAndQuery, origin, "Bearer " + TestKeys.admin());
  }

  /** The same with this Authorization header (null: none). */
  public static Socket rawUpgrade(
      int port, String pathAndQuery, String origin, String authorization) throws IOException {
    Socket s = new Socket();
    s.setReceiveBufferSize(4096);
    s.connect(new java.net.InetSocketAddress("127.0.0.1", port), 5000);
    String key =
        Base64.getEncoder().encodeToString("0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
    String req =
        "GET "
            + pathAndQuery
            + " HTTP/1.1\r\nHost: 127.0.0.1:"
            + port
            + "\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: "
            + key
            + "\r\nSec-WebSocket-Version: 13\r\n"
            + (origin == null ? "" : "Origin: " + origin + "\r\n")
            + (authorization == null ? "" : "Authorization: " + authorization + "\r\n")
            + "\r\n";
    OutputStream out = s.getOutputStream();
    out.write(req.getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return s;
  }

  /** The status line of the server's answer on a raw socket. */
  public static String statusLine(Socket s) throws IOException {
    s.setSoTimeout(5000);
    InputStream in = s.getInputStream();
    StringBuilder line = new StringBuilder();
    for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
      line.append((char) c);
    }
    return line.toString().trim();
  }

  /**
   * On a raw socket already upgraded ({@link #rawUpgrade}): reads the 101 answer, sends one masked
   * client frame whose header claims {@code declaredLength} bytes (followed by {@code payload}),
   * then reads server frames until the close frame and returns its status code (-1 if the
   * connection ends without one).
   */
  public static int closeCodeAfterSending(Socket s, int opcode, long declaredLength, byte[] payload)
      throws IOException {
    s.setSoTimeout(10_000);
    InputStream in = s.getInputStream();
    // the 101 answer ends with an empty line
    for (int matched = 0; matched < 4; ) {
      int c = in.read();
      if (c < 0) {
        return -1;
      }
      matched = (c == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (c == '\r' ? 1 : 0);
    }
    java.io.ByteArrayOutputStream frame = new java.io.ByteArrayOutputStream();
    frame.write(0x80 | opcode);
    if (declaredLength < 126) {
      frame.write(0x80 | (int) declaredLength);
    } else if (declaredLength <= 0xFFFF) {
      frame.write(0x80 | 126);
      frame.write((int) (declaredLength >> 8));
      frame.write((int) declaredLength & 0xFF);
    } else {
      frame.write(0x80 | 127);
      for (int i = 7; i >= 0; i--) {
        frame.write((int) (declaredLength >> (8 * i)) & 0xFF);
      }
    }
    byte[] mask = {1, 2, 3, 4};
    frame.write(mask);
    for (int i = 0; i < payload.length; i++) {
      frame.write(payload[i] ^ mask[i % 4]);
    }
    OutputStream out = s.getOutputStream();
    out.write(frame.toByteArray());
    out.flush();
    while (true) {
      int b0 = in.read();
      int b1 = in.read();
      if (b0 < 0 || b1 < 0) {
        return -1;
      }
      long len = b1 & 0x7F;
      if (len == 126) {
        len = (in.read() << 8) | in.read();
      } else if (len == 127) {
        len = 0;
        for (int i = 0; i < 8; i++) {
          len = (len << 8) | in.read();
        }
      }
      byte[] body = in.readNBytes((int) len);
      if ((b0 & 0x0F) == 0x8) {
        return body.length >= 2 ? ((body[0] & 0xFF) << 8) | (body[1] & 0xFF) : -1;
      }
    }
  }

  @Override
  public void close() {
    if (!closed.isDone()) {
      ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye");
      try {
        closed.get(5, TimeUnit.SECONDS);
      } catch (Exception e) {
        ws.abort();
      }
    }
  }
}
