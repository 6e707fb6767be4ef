package io.ambergarden.web.read;

import io.ambergarden.bus.EventPage;
import io.ambergarden.bus.ExportPageQuery;
import io.ambergarden.bus.PagePosition;
import io.ambergarden.web.AccessHandler;
import io.ambergarden.web.ExportLoad;
import io.ambergarden.web.ExportLoad.Outcome;
import io.ambergarden.web.RequestIds;
import io.vertx.core.AsyncResult;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running export, on its request's event loop: reads a page from the query verticle, writes it,
 * and asks for the next only when the bytes it wrote and the socket has not taken yet are under
 * {@code export.write-queue-bytes}, so what it holds is one page plus that much however long the
 * range. A client that stops reading for {@code export.stall-timeout} is dropped; one that
 * disconnects stops the reads at the next page. Before the next page it takes the rate tokens its
 * reads owe (one per {@link #EVENTS_PER_TOKEN} events), waiting for the key's rate when there are
 * none: an export slows down, it never fails for its rate.
 *
 * <p>The first page is read before the status is sent, so a store failure then is a problem answer;
 * a failure later can only cut the response short (the connection is closed, and the chunked body
 * never gets its last chunk, so the client sees the export is incomplete).
 */
final class ExportStream {
  static final int EVENTS_PER_TOKEN = 1000;
  private static final Logger LOG = LoggerFactory.getLogger(ExportStream.class);

  /** What an export reads and how it writes it. */
  record Plan(
      ExportPageQuery.Request first,
      ExportFormat format,
      List<String> metrics,
      String filename,
      long pageTimeoutMillis,
      long stallTimeoutMillis,
      int writeQueueBytes) {}

  private final Vertx vertx;
  private final RoutingContext ctx;
  private final HttpServerResponse response;
  private final AccessHandler access;
  private final ExportLoad load;
  private final Plan plan;
  private final Consumer<ExportStream> onEnd;
  private final ExportTokens tokens = new ExportTokens(EVENTS_PER_TOKEN);
  private long buffered;
  private long timer = -1;

  /** What to do once the client caught up; null while not paused. */
  private Runnable resume;

  private boolean ended;

  ExportStream(
      Vertx vertx,
      RoutingContext ctx,
      AccessHandler access,
      ExportLoad load,
      Plan plan,
      Consumer<ExportStream> onEnd) {
    this.vertx = vertx;
    this.ctx = ctx;
    this.response = ctx.response();
    this.access = access;
    this.load = load;
    this.plan = plan;
    this.onEnd = onEnd;
  }

  /** Starts the reads; the export slot is already taken and is given back when this ends. */
  void start() {
    response.closeHandler(v -> end(Outcome.DISCONNECTED));
    response.exceptionHandler(err -> end(Outcome.DISCONNECTED));
    read(null);
  }

  /** Ends a running export now (the server stops): the client sees a cut response. */
  void abort() {
    if (!ended) {
      end(Outcome.FAILED);
      response.reset();
    }
  }

  private void read(PagePosition position) {
    if (ended) {
      return;
    }
    ExportPageQuery.Request first = plan.first();
    ExportPageQuery.Request request =
        new ExportPageQuery.Request(
            first.deviceId(), first.from(), first.to(), first.limit(), position);
    ExportPageQuery.ENDPOINT
        .request(vertx, request, RequestIds.of(ctx), plan.pageTimeoutMillis())
        .onComplete(this::onPage);
  }

  private void onPage(AsyncResult<EventPage> ar) {
    if (ended) {
      return;
    }
    if (ar.failed()) {
      failed(ar.cause());
      return;
    }
    EventPage page = ar.result();
    if (!response.headWritten()) {
      response
          .setStatusCode(200)
          .setChunked(true)
          .setWriteQueueMaxSize(plan.writeQueueBytes())
          .putHeader("Content-Type", plan.format().contentType)
          .putHeader("Content-Disposition", "attachment; filename=\"" + plan.filename() + "\"")
          .putHeader("Cache-Control", "no-store");
      write(plan.format().head(plan.metrics()));
    }
    load.read(page.items().size());
    tokens.read(page.items().size());
    write(plan.format().render(page.items(), plan.metrics()));
    if (page.next() == null) {
      response
          .end()
          .onComplete(done -> end(done.succeeded() ? Outcome.COMPLETE : Outcome.DISCONNECTED));
      return;
    }
    PagePosition next = page.next();
    takeTokens(() -> whenWritable(() -> read(next)));
  }

  private void write(Buffer bytes) {
    int n = bytes.length();
    if (n == 0) {
      return;
    }
    buffered += n;
    load.buffered(n);
    response
        .write(bytes)
        .onComplete(
            r -> {
              if (!ended) {
                buffered -= n;
                load.buffered(-n);
                maybeResume();
              }
            });
  }

  /** Takes the tokens the reads so far owe, at the key's rate, then goes on. */
  private void takeTokens(Runnable then) {
    while (!ended && tokens.owed() > 0) {
      long wait = access.rateWait(ctx);
      if (wait > 0) {
        timer = vertx.setTimer(Math.max(1, (wait + 999_999) / 1_000_000), id -> takeTokens(then));
        return;
      }
      tokens.took();
    }
    if (!ended) {
      then.run();
    }
  }

  /**
   * Goes on now if the bytes written and not yet flushed are under {@code export.write-queue-bytes}
   * (and the connection's own queue has room), else once they fell to half of it; drops a client
   * that does not take them within the stall timeout. The bytes are counted here, from the writes'
   * completions, because Vert.x reports a full queue only after 16 queued writes, whatever their
   * size: with pages of up to a few MB that alone would not bound the memory.
   */
  private void whenWritable(Runnable then) {
    if (buffered < plan.writeQueueBytes() && !response.writeQueueFull()) {
      then.run();
      return;
    }
    load.paused();
    resume = then;
    timer = vertx.setTimer(plan.stallTimeoutMillis(), id -> stalled());
    response.drainHandler(v -> maybeResume());
  }

  private void maybeResume() {
    if (resume == null
        || ended
        || buffered > plan.writeQueueBytes() / 2
        || response.writeQueueFull()) {
      return;
    }
    Runnable then = resume;
    resume = null;
    load.resumed();
    vertx.cancelTimer(timer);
    response.drainHandler(null);
    then.run();
  }

  private void stalled() {
    if (ended) {
      return;
    }
    LOG.info(
        "export of {} dropped: the client read nothing for {} ms ({} events read, requestId={})",
        plan.first().deviceId(),
        plan.stallTimeoutMillis(),
        tokens.events(),
        RequestIds.of(ctx));
    end(Outcome.STALLED);
    response.reset();
  }

  private void failed(Throwable err) {
    if (!response.headWritten()) {
      end(Outcome.FAILED);
      ctx.fail(err);
      return;
    }
    LOG.warn(
        "export of {} cut short after {} events: {} (requestId={})",
        plan.first().deviceId(),
        tokens.events(),
        err.getMessage(),
        RequestIds.of(ctx));
    end(Outcome.FAILED);
    response.reset();
  }

  /** Ends once: gives the slot back and forgets what it still had buffered. */
  private void end(Outcome outcome) {
    if (ended) {
      return;
    }
    ended = true;
    if (resume != null) {
      resume = null;
      load.resumed();
    }
    if (timer != -1) {
      vertx.cancelTimer(timer);
    }
    load.buffered(-buffered);
    buffered = 0;
    load.ended(outcome);
    onEnd.accept(this);
  }
}
