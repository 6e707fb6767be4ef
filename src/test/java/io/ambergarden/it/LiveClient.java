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

  /** The close code the server sent, or null while open (-1 after an error). */
  public Integer closeStatus() {
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
