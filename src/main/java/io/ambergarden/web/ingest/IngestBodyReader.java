package io.ambergarden.web.ingest;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.web.AdmissionBudget;
import io.ambergarden.web.ApiException;
import io.ambergarden.web.HttpBudgets;
import io.ambergarden.web.Refusals;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Admits an ingest request before its body is read and reads the body within the process-wide
 * budgets: one request and its body bytes (the Content-Length, or reserved in steps while a chunked
 * body streams), at most http.max-body-bytes, within http.body-timeout. A refused request is
 * answered at once; the rest of its body is read and dropped (at most http.max-body-bytes, within
 * http.body-timeout) before the connection is closed: closing while the client still sends would
 * make the kernel reset the connection, and the client would lose the answer.
 */
final class IngestBodyReader {
  /** Reservation step of a chunked body. */
  static final int CHUNK_STEP = 64 * 1024;

  private final Vertx vertx;
  private final AmberConfig config;
  private final HttpBudgets budgets;
  private final Refusals refusals;

  IngestBodyReader(Vertx vertx, AmberConfig config, HttpBudgets budgets) {
    this.vertx = vertx;
    this.config = config;
    this.budgets = budgets;
    this.refusals = new Refusals(vertx, config.http());
  }

  /**
   * Calls {@code onBody} with the whole body, or answers the request itself. The future {@code
   * onBody} returns completes once the body's events no longer sit in this process on the request's
   * behalf (handed on or dropped); the request's slot and bytes are held until then, and until the
   * exchange is over (answered, or the connection gone).
   */
  void read(RoutingContext ctx, Function<byte[], Future<?>> onBody) {
    HttpServerRequest req = ctx.request();
    if (ctx.response().closed()) {
      // the client left before admission (while its key was checked, say): nothing is taken, and
      // no end handler could ever give it back on a connection already closed
      return;
    }
    long max = config.http().maxBodyBytes();
    long declared = contentLength(req);
    if (declared > max) {
      refusals.refuse(ctx, tooLarge());
      return;
    }
    if (!budgets.ingestRequests().tryAcquire(1)) {
      shed(ctx, HttpBudgets.Shed.REQUESTS, "too many ingest requests in flight");
      return;
    }
    AdmissionBudget.Reservation bytes =
        budgets.ingestBytes().reserve(declared >= 0 ? declared : Math.min(CHUNK_STEP, max));
    if (bytes == null) {
      budgets.ingestRequests().release(1);
      shed(ctx, HttpBudgets.Shed.BYTES, "too many body bytes in flight");
      return;
    }
    Admitted admitted = new Admitted(bytes);
    // the response is open (checked above, on this event loop): its end or its close calls this
    ctx.addEndHandler(ar -> admitted.exchangeOver());
    if (req.isEnded()) {
      admitted.handOn(onBody, new byte[0]);
      return;
    }
    new Upload(ctx, admitted, declared, onBody).start();
  }

  /**
   * The request slot and body bytes of one admitted request, given back exactly once: when both the
   * exchange is over and the body is no longer held (handed on, dropped, or never complete).
   */
  private final class Admitted {
    final AdmissionBudget.Reservation bytes;
    private final AtomicInteger open = new AtomicInteger(2);
    private final AtomicBoolean exchangeOver = new AtomicBoolean();
    private final AtomicBoolean bodyFreed = new AtomicBoolean();

    Admitted(AdmissionBudget.Reservation bytes) {
      this.bytes = bytes;
    }

    void exchangeOver() {
      if (exchangeOver.compareAndSet(false, true)) {
        countDown();
      }
    }

    void bodyFreed() {
      if (bodyFreed.compareAndSet(false, true)) {
        countDown();
      }
    }

    void handOn(Function<byte[], Future<?>> onBody, byte[] body) {
      Future<?> held;
      try {
        held = onBody.apply(body);
      } catch (RuntimeException e) {
        bodyFreed();
        throw e;
      }
      held.onComplete(ar -> bodyFreed());
    }

    private void countDown() {
      if (open.decrementAndGet() == 0) {
        bytes.release();
        budgets.ingestRequests().release(1);
      }
    }
  }

  /** One body on its way in; all on the request's event loop. */
  private final class Upload {
    final RoutingContext ctx;
    final Admitted admitted;
    final AdmissionBudget.Reservation bytes;
    final Function<byte[], Future<?>> onBody;
    byte[] data;
    int size;
    boolean done;
    long timer;

    Upload(
        RoutingContext ctx, Admitted admitted, long declared, Function<byte[], Future<?>> onBody) {
      this.ctx = ctx;
      this.admitted = admitted;
      this.bytes = admitted.bytes;
      this.onBody = onBody;
      this.data = new byte[(int) (declared >= 0 ? declared : Math.min(CHUNK_STEP, bytes.held()))];
    }

    void start() {
      HttpServerRequest req = ctx.request();
      timer =
          vertx.setTimer(
              config.http().bodyTimeout().toMillis(),
              id -> {
                if (finish(false)) {
                  budgets.shed(HttpBudgets.Shed.BODY_TIMEOUT);
                  refusals.refuse(
                      ctx,
                      new ApiException(
                          408,
                          "Request Timeout",
                          "the body did not arrive within " + config.http().bodyTimeout(),
                          null,
                          null));
                }
              });
      req.handler(this::chunk);
      req.endHandler(
          v -> {
            if (finish(true)) {
              byte[] body = size == data.length ? data : Arrays.copyOf(data, size);
              data = null;
              admitted.handOn(onBody, body);
            }
          });
      req.exceptionHandler(
          err -> finish(false)); // the connection is gone: its close handler releases
      if ("100-continue".equalsIgnoreCase(req.getHeader(HttpHeaders.EXPECT))) {
        ctx.response().writeContinue();
      }
      req.resume();
    }

    private void chunk(Buffer buf) {
      if (done) {
        return;
      }
      long total = (long) size + buf.length();
      long max = config.http().maxBodyBytes();
      if (total > max) {
        finish(false);
        refusals.refuse(ctx, tooLarge());
        return;
      }
      if (total > bytes.held()
          && !bytes.growTo(Math.min(max, (total + CHUNK_STEP - 1) / CHUNK_STEP * CHUNK_STEP))) {
        finish(false);
        budgets.shed(HttpBudgets.Shed.BYTES);
        refusals.refuse(ctx, unavailable("too many body bytes in flight"));
        return;
      }
      if (total > data.length) {
        data = Arrays.copyOf(data, (int) Math.min(max, Math.max(total, 2L * data.length)));
      }
      buf.getBytes(0, buf.length(), data, size);
      size = (int) total;
    }

    /**
     * True the first time: the upload ends here, one way or another. A body that did not arrive
     * whole is dropped here; a whole one is handed on by the caller.
     */
    private boolean finish(boolean whole) {
      if (done) {
        return false;
      }
      done = true;
      vertx.cancelTimer(timer);
      if (!whole) {
        data = null;
        admitted.bodyFreed();
      }
      return true;
    }
  }

  private void shed(RoutingContext ctx, HttpBudgets.Shed reason, String detail) {
    budgets.shed(reason);
    refusals.refuse(ctx, unavailable(detail));
  }

  private ApiException unavailable(String detail) {
    return ApiException.unavailable(detail, config.ingest().retryAfterSeconds());
  }

  private ApiException tooLarge() {
    return new ApiException(
        413,
        "Payload Too Large",
        "the request body exceeds " + config.http().maxBodyBytes() + " bytes",
        null,
        null);
  }

  /** Answers now, reading and dropping what is left of the body (see {@link Refusals}). */
  void refuse(RoutingContext ctx, ApiException answer) {
    refusals.refuse(ctx, answer);
  }

  /** -1 without the header; a malformed or negative value is a 400. */
  static long contentLength(HttpServerRequest req) {
    String v = req.getHeader(HttpHeaders.CONTENT_LENGTH);
    if (v == null) {
      return -1;
    }
    try {
      long n = Long.parseLong(v.trim());
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw ApiException.invalidParameter("Content-Length", "must be a non-negative integer");
  }
}
