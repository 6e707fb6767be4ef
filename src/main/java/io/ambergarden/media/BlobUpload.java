package io.ambergarden.media;

import io.ambergarden.media.BlobTransferException.Reason;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.streams.ReadStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Streams one upload body into the object store with a bounded buffer: the first bytes are held
 * until the type can be told from them (at most {@link ImageTypes#SNIFF_BYTES} plus one network
 * chunk), then every chunk is hashed (SHA-256) and written on, and the body is paused whenever the
 * store's connection has {@link #WRITE_QUEUE_BYTES} queued. Nothing reaches the store before the
 * magic bytes match the declared type. Completes once the store answered 200 for all of it.
 */
public final class BlobUpload {
  /** What the store got: the byte count and the hex SHA-256 of the body. */
  public record Stored(long bytes, String sha256) {}

  static final int WRITE_QUEUE_BYTES = 64 * 1024;

  private final HttpClient client;
  private final ObjectStore store;
  private final ReadStream<Buffer> body;
  private final String declaredType;
  private final long length;
  private final String key;
  private final Promise<Stored> result = Promise.promise();
  private final MessageDigest sha256;
  private Buffer head = Buffer.buffer(ImageTypes.SNIFF_BYTES);
  private HttpClientRequest put;
  private long received;
  private boolean opening;
  private boolean ended;
  private long lastProgress = System.currentTimeMillis();

  private BlobUpload(
      HttpClient client,
      ObjectStore store,
      ReadStream<Buffer> body,
      String declaredType,
      long length,
      String key) {
    this.client = client;
    this.store = store;
    this.body = body;
    this.declaredType = declaredType;
    this.length = length;
    this.key = key;
    try {
      this.sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Starts reading {@code body} ({@code length} bytes, declared as {@code declaredType}) into the
   * store under {@code key}. On failure the body is left paused for the caller to answer and drain.
   */
  public static BlobUpload start(
      HttpClient client,
      ObjectStore store,
      ReadStream<Buffer> body,
      String declaredType,
      long length,
      String key) {
    BlobUpload u = new BlobUpload(client, store, body, declaredType, length, key);
    body.handler(u::onChunk);
    body.endHandler(v -> u.onEnd());
    body.exceptionHandler(e -> u.fail(Reason.CLIENT_GONE, "the client went away: " + e));
    body.resume();
    return u;
  }

  /** Completes once the store holds the whole body; fails with a {@link BlobTransferException}. */
  public Future<Stored> future() {
    return result.future();
  }

  /** Gives up (e.g. a deadline passed): the store request is reset, nothing is stored. */
  public void abort(BlobTransferException.Reason reason, String message) {
    fail(reason, message);
  }

  /**
   * Fails the upload when it has waited on the store (for room in its connection, or for its
   * answer) longer than {@code stallMillis}; waiting on a slow client is the deadline's business.
   */
  public void checkStall(long now, long stallMillis) {
    // an ended request has no write queue to ask about
    boolean waitingOnStore =
        put != null && (ended ? !put.response().isComplete() : put.writeQueueFull());
    if (!done() && waitingOnStore && now - lastProgress > stallMillis) {
      fail(
          Reason.STORE_UNAVAILABLE,
          "the object store made no progress for " + (now - lastProgress) + " ms");
    }
  }

  private void onChunk(Buffer chunk) {
    if (done()) {
      return;
    }
    received += chunk.length();
    if (put == null) {
      head.appendBuffer(chunk);
      if (!opening && head.length() >= Math.min(ImageTypes.SNIFF_BYTES, length)) {
        open();
      }
      return;
    }
    write(chunk);
  }

  private void onEnd() {
    ended = true;
    if (done()) {
      return;
    }
    if (received != length) {
      fail(Reason.CLIENT_GONE, "the body ended after " + received + " of " + length + " bytes");
    } else if (put == null && !opening) {
      open();
    } else if (put != null) {
      lastProgress = System.currentTimeMillis();
      put.end();
    }
  }

  /** Checks the magic bytes, then opens the store request and sends what was held. */
  private void open() {
    opening = true;
    body.pause();
    byte[] first = head.getBytes(0, Math.min(head.length(), ImageTypes.SNIFF_BYTES));
    String actual = ImageTypes.sniff(first, first.length);
    if (!declaredType.equals(actual)) {
      fail(
          Reason.TYPE_MISMATCH,
          "the bytes are "
              + (actual == null ? "not a supported image" : actual)
              + ", not the declared "
              + declaredType);
      return;
    }
    store
        .putRequest(key, declaredType, length)
        .compose(
            options ->
                client.request(
                    options
                        .putHeader("Content-Type", declaredType)
                        .putHeader("Content-Length", Long.toString(length))))
        .onFailure(e -> fail(Reason.STORE_UNAVAILABLE, "object store unreachable: " + e))
        .onSuccess(this::started);
  }

  private void started(HttpClientRequest request) {
    if (done()) {
      request.reset();
      return;
    }
    put = request;
    lastProgress = System.currentTimeMillis();
    put.setWriteQueueMaxSize(WRITE_QUEUE_BYTES);
    put.exceptionHandler(e -> fail(Reason.STORE_UNAVAILABLE, "object store failed: " + e));
    put.response().onComplete(ar -> answered(ar.succeeded() ? ar.result() : null, ar.cause()));
    Buffer held = head;
    head = null;
    write(held);
    if (ended) {
      lastProgress = System.currentTimeMillis();
      put.end();
    } else if (!put.writeQueueFull()) {
      body.resume();
    }
  }

  private void write(Buffer chunk) {
    sha256.update(chunk.getBytes());
    put.write(chunk);
    lastProgress = System.currentTimeMillis();
    if (put.writeQueueFull() && !ended) {
      body.pause();
      put.drainHandler(
          v -> {
            lastProgress = System.currentTimeMillis();
            if (!done() && !ended) {
              body.resume();
            }
          });
    }
  }

  private void answered(HttpClientResponse response, Throwable failure) {
    if (done()) {
      return;
    }
    if (response == null) {
      fail(Reason.STORE_UNAVAILABLE, "object store failed: " + failure);
      return;
    }
    int status = response.statusCode();
    // the answer's small body (an XML error, or nothing) is read so the connection can be reused
    response
        .body()
        .onComplete(
            ar -> {
              if (status == 200 && ended && received == length) {
                result.tryComplete(new Stored(received, HexFormat.of().formatHex(sha256.digest())));
              } else if (status == 200) {
                fail(Reason.STORE_UNAVAILABLE, "object store answered before the whole body");
              } else {
                fail(
                    status >= 500 ? Reason.STORE_UNAVAILABLE : Reason.STORE_REFUSED,
                    "object store answered " + status + " for " + key);
              }
            });
  }

  private boolean done() {
    return result.future().isComplete();
  }

  private void fail(Reason reason, String message) {
    if (!result.tryFail(new BlobTransferException(reason, message))) {
      return;
    }
    if (!ended) {
      body.pause();
    }
    if (put != null && !put.response().isComplete()) {
      // never let a partial body become an object: drop the store connection
      put.reset();
    }
  }
}
