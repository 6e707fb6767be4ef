package io.ambergarden.chaos;

import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A real HTTP server on an ephemeral loopback port that records what each connection brought: its
 * peer, the request head, the body chunks and when they came, whether the request ended and whether
 * the connection closed. It answers {@link #status} at the end of a request; with a body timeout
 * set, a body not whole by then gets a 408 (as the product does).
 */
final class RecordingHttpServer implements AutoCloseable {
  /** What one connection brought; written on its event loop, read by the test. */
  static final class Seen {
    volatile String remoteHost;
    volatile MultiMap headers;
    private final List<Long> chunkNanos = new ArrayList<>();
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    volatile boolean ended;
    volatile boolean closed;
    volatile int answered;

    synchronized byte[] body() {
      return body.toByteArray();
    }

    synchronized List<Long> chunkNanos() {
      return List.copyOf(chunkNanos);
    }

    synchronized void chunk(byte[] bytes) {
      chunkNanos.add(System.nanoTime());
      body.writeBytes(bytes);
    }

    long contentLength() {
      return Long.parseLong(headers.get("Content-Length"));
    }
  }

  volatile int status = 202;
  volatile int earlyStatus = 408;
  volatile long answerAfterBytes = Long.MAX_VALUE;

  private final Vertx vertx;
  private final HttpServer server;
  private final List<Seen> connections = new CopyOnWriteArrayList<>();
  private final Map<HttpConnection, Seen> byConnection = new ConcurrentHashMap<>();

  RecordingHttpServer(Vertx vertx) throws java.util.concurrent.TimeoutException {
    this.vertx = vertx;
    this.server =
        vertx
            .createHttpServer()
            .connectionHandler(this::connected)
            .requestHandler(this::request)
            .listen(0, "127.0.0.1")
            .await(10, TimeUnit.SECONDS);
  }

  InetSocketAddress address() {
    return new InetSocketAddress("127.0.0.1", server.actualPort());
  }

  List<Seen> connections() {
    return List.copyOf(connections);
  }

  private void connected(HttpConnection conn) {
    Seen seen = new Seen();
    seen.remoteHost = conn.remoteAddress().hostAddress();
    byConnection.put(conn, seen);
    connections.add(seen);
    conn.closeHandler(v -> seen.closed = true);
  }

  private void request(HttpServerRequest req) {
    Seen seen = byConnection.get(req.connection());
    seen.headers = req.headers();
    long early = answerAfterBytes;
    req.handler(
        buf -> {
          seen.chunk(buf.getBytes());
          if (seen.body().length >= early && !req.response().ended()) {
            seen.answered = earlyStatus;
            req.response().setStatusCode(earlyStatus).putHeader("Connection", "close").end();
          }
        });
    req.exceptionHandler(err -> {});
    req.endHandler(
        v -> {
          seen.ended = true;
          if (!req.response().ended()) {
            seen.answered = status;
            req.response().setStatusCode(status).end();
          }
        });
  }

  @Override
  public void close() throws java.util.concurrent.TimeoutException {
    server.close().await(10, TimeUnit.SECONDS);
  }
}
