package io.ambergarden.chaos.history;

import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The run's history, written as it goes to a GZIP-compressed NDJSON file (one {@link Op} a line),
 * so memory holds nothing but a write buffer. Bounded by {@code maxOps}: past it operations are no
 * longer recorded and {@link #truncated} says so, which fails the run (a hollow history proves
 * nothing). Times are {@link System#nanoTime} since the history was opened.
 */
public final class History implements AutoCloseable {
  /** Twenty million operations: far beyond a 30-minute run at the default rates. */
  public static final long DEFAULT_MAX_OPS = 20_000_000L;

  private final Path file;
  private final long maxOps;
  private final long startNanos = System.nanoTime();
  private Writer out;
  private long next;
  private long dropped;
  private IOException failure;

  public History(Path file, long maxOps) throws IOException {
    this.file = file;
    this.maxOps = maxOps;
    Files.createDirectories(file.toAbsolutePath().getParent());
    this.out =
        new BufferedWriter(
            new OutputStreamWriter(
                new GZIPOutputStream(Files.newOutputStream(file), 64 * 1024),
                StandardCharsets.UTF_8));
  }

  public Path file() {
    return file;
  }

  /** Records an invocation; returns it, to be completed by {@link #complete}. */
  public Op invoke(
      int process, Op.Fn f, int slot, boolean direct, List<Op.Written> written, Op.Read read) {
    synchronized (this) {
      Op op = new Op(next, process, Op.Type.INVOKE, f, slot, direct, now(), written, read, null);
      return record(op);
    }
  }

  /** Records the completion of {@code invoked} ({@code seen}: what a read returned). */
  public Op complete(Op invoked, Op.Type type, Op.Read seen, String outcome) {
    if (type == Op.Type.INVOKE) {
      throw new IllegalArgumentException("a completion is ok, fail or info");
    }
    synchronized (this) {
      return record(invoked.complete(next, type, now(), seen, outcome));
    }
  }

  private long now() {
    return System.nanoTime() - startNanos;
  }

  private Op record(Op op) {
    if (out == null || next >= maxOps) {
      dropped++;
      return op;
    }
    next++;
    try {
      out.write(op.toJson().encode());
      out.write('\n');
    } catch (IOException e) {
      failure = e;
      dropped++;
    }
    return op;
  }

  /** Operations recorded. */
  public synchronized long recorded() {
    return next;
  }

  /** True when an operation was not recorded (the bound was reached, or the file failed). */
  public synchronized boolean truncated() {
    return dropped > 0 || failure != null;
  }

  public synchronized long dropped() {
    return dropped;
  }

  /** Finishes the file; later operations are dropped (and counted). */
  @Override
  public synchronized void close() throws IOException {
    if (out != null) {
      out.close();
      out = null;
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Streams the operations of a closed history file, in the order they were recorded. */
  public static void replay(Path file, Consumer<Op> each) {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(
                new GZIPInputStream(Files.newInputStream(file)), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (!line.isBlank()) {
          each.accept(Op.fromJson(new JsonObject(line)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
