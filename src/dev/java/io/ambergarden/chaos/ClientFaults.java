package io.ambergarden.chaos;

import io.ambergarden.chaos.history.History;
import io.ambergarden.chaos.history.Op;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;

/**
 * Clients that misbehave the way real ones do, over raw sockets so each request is cut at an exact
 * point: connections closed during authentication, mid-body and after the body, slow bodies, and
 * batches sent again to another instance. Every try is bounded in time (connect and read timeouts)
 * and recorded as the workload records its posts: the ledger learns what was attempted and
 * acknowledged, the history gets a {@link Op.Fn#POST} whose outcome starts with {@value
 * #OUTCOME_PREFIX}. Events whose body never left the client are not marked sent, so finding one
 * stored is a finding. Thread-safe.
 */
public final class ClientFaults implements AutoCloseable {
  /** History outcomes of client-fault tries start with this. */
  public static final String OUTCOME_PREFIX = "client-fault ";

  /**
   * History process ids of client-fault tries start here, past the workload's posters, readers and
   * Kafka sends (1000 + up to a million); each try is its own process.
   */
  public static final int FIRST_PROCESS = 2_000_000;

  /** Tally kind of tries a burst could not start. */
  public static final String BURST = "burst";

  public enum Kind {
    CLOSE_DURING_AUTH,
    CLOSE_MID_BODY,
    CLOSE_AFTER_BODY,
    SLOW_CLIENT,
    RESEND_ELSEWHERE;

    public String label() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /** How each kind is done. */
  public enum Variant {
    /** The right key, then close before the first body byte, while the key is looked up. */
    HEADERS_THEN_CLOSE(Kind.CLOSE_DURING_AUTH),
    /** Half the key (an invalid one), then close at once; from its own source address. */
    WRONG_KEY_THEN_CLOSE(Kind.CLOSE_DURING_AUTH),
    /** Close in the middle of the key header: the server never gets a whole request head. */
    CUT_IN_KEY_HEADER(Kind.CLOSE_DURING_AUTH),
    HALF_BODY_THEN_CLOSE(Kind.CLOSE_MID_BODY),
    HALF_BODY_THEN_RESET(Kind.CLOSE_MID_BODY),
    WHOLE_BODY_THEN_CLOSE(Kind.CLOSE_AFTER_BODY),
    WHOLE_BODY_THEN_RESET(Kind.CLOSE_AFTER_BODY),
    /** The body in chunks over an eighth of the server's body timeout. */
    SLOW_WITHIN_TIMEOUT(Kind.SLOW_CLIENT),
    /** The body in chunks over 1.2 times the server's body timeout: the server must cut it. */
    SLOW_PAST_TIMEOUT(Kind.SLOW_CLIENT),
    /** Post, read the answer, whatever it is, then post the same body to another instance. */
    RESEND_AFTER_ANSWER(Kind.RESEND_ELSEWHERE),
    /** Post, hang up without the answer (a client that gave up), then post to another instance. */
    RESEND_WITHOUT_WAITING(Kind.RESEND_ELSEWHERE);

    private final Kind kind;

    Variant(Kind kind) {
      this.kind = kind;
    }

    public Kind kind() {
      return kind;
    }

    public String label() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static List<Variant> of(Kind kind) {
      List<Variant> out = new ArrayList<>();
      for (Variant v : values()) {
        if (v.kind == kind) {
          out.add(v);
        }
      }
      return out;
    }
  }

  /**
   * {@code bodyTimeout}: the server's http.body-timeout, which the slow variants stay inside of or
   * go past. {@code wrongKeySource}: the local address wrong keys come from, since the product
   * throttles every request of an address that failed authentication too often
   * (auth.address.failures-per-minute), and the workload's own address must not be.
   */
  public record Settings(
      Duration connect,
      Duration read,
      Duration bodyTimeout,
      int slowChunks,
      int batch,
      InetAddress wrongKeySource) {
    /** The product's defaults (http.body-timeout=30s), five events a try. */
    public static final Settings DEFAULT =
        new Settings(
            Duration.ofSeconds(3),
            Duration.ofSeconds(5),
            Duration.ofSeconds(30),
            10,
            5,
            loopback(250));

    public Settings {
      if (slowChunks < 2 || batch < 1) {
        throw new IllegalArgumentException("slowChunks >= 2 and batch >= 1");
      }
    }

    Duration slowWithin() {
      return bodyTimeout.dividedBy(8);
    }

    Duration slowPast() {
      return bodyTimeout.multipliedBy(6).dividedBy(5);
    }

    /** The longest a try can take: a slow body past the timeout, or two posts of a resend. */
    Duration longestTry() {
      Duration slow = connect.plus(slowPast()).plus(read);
      Duration resend = connect.plus(read).multipliedBy(2);
      return (slow.compareTo(resend) > 0 ? slow : resend).plusSeconds(1);
    }

    static InetAddress loopback(int last) {
      try {
        return InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) last});
      } catch (java.net.UnknownHostException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** One connection of a try: where it went, what came of it, and how the history has it. */
  public record Try(int slot, String result, Op.Type type) {}

  /** A try of one variant: its connections (none when it was skipped, and why). */
  public record Outcome(Variant variant, List<Try> tries, String skipped) {
    public Outcome {
      tries = List.copyOf(tries);
    }

    /** The tally's outcome: the variant and each connection's result. */
    public String key() {
      if (skipped != null) {
        return variant.label() + ": skipped, " + skipped;
      }
      StringBuilder b = new StringBuilder(variant.label()).append(": ");
      for (int i = 0; i < tries.size(); i++) {
        b.append(i == 0 ? "" : " then ").append(tries.get(i).result());
      }
      return b.toString();
    }
  }

  private static final int MAX_WORKERS = 16;

  private final IntFunction<InetSocketAddress> slots;
  private final int slotCount;
  private final String apiKey;
  private final AckLedger ledger;
  private final History history;
  private final IntPredicate directSlot;
  private final Settings settings;
  private final Random random;
  private final RawExchange exchange;
  private final FaultTally tally = new FaultTally();
  private final AtomicLong tries = new AtomicLong();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final ThreadPoolExecutor workers =
      new ThreadPoolExecutor(
          0,
          MAX_WORKERS,
          30,
          TimeUnit.SECONDS,
          new SynchronousQueue<>(),
          r -> {
            Thread t = new Thread(r, "client-faults");
            t.setDaemon(true);
            return t;
          });

  public ClientFaults(
      IntFunction<InetSocketAddress> slots,
      int slotCount,
      String apiKey,
      AckLedger ledger,
      History history,
      long seed) {
    this(slots, slotCount, apiKey, ledger, history, seed, slot -> false, Settings.DEFAULT);
  }

  /** {@code directSlot}: whether a slot's instance runs in direct mode (the history says so). */
  public ClientFaults(
      IntFunction<InetSocketAddress> slots,
      int slotCount,
      String apiKey,
      AckLedger ledger,
      History history,
      long seed,
      IntPredicate directSlot,
      Settings settings) {
    if (slotCount < 1 || apiKey.length() < 2) {
      throw new IllegalArgumentException("one slot at least, and an API key");
    }
    this.slots = slots;
    this.slotCount = slotCount;
    this.apiKey = apiKey;
    this.ledger = ledger;
    this.history = history;
    this.directSlot = directSlot;
    this.settings = settings;
    this.random = new Random(seed);
    this.exchange = new RawExchange(settings.read());
  }

  /** One try of {@code kind} (a random variant of it) against {@code slot}. */
  public Outcome run(Kind kind, int slot) {
    List<Variant> variants = Variant.of(kind);
    Variant v;
    synchronized (random) {
      v = variants.get(random.nextInt(variants.size()));
    }
    return run(v, slot, s -> true);
  }

  /** One try of {@code variant} against {@code slot}; a resend goes to another slot that is up. */
  public Outcome run(Variant variant, int slot, IntPredicate up) {
    Outcome o = attempt(variant, slot, up);
    tally.add(variant.kind().label(), o.key());
    return o;
  }

  /**
   * Random variants against random slots that are {@code up}, {@code perSecond} tries a second for
   * {@code d}, at most {@value #MAX_WORKERS} at once (a try past that is skipped and counted); then
   * waits for the tries still running, at most {@link Settings#longestTry}. Returns the tries
   * started.
   */
  public int burst(Duration d, int perSecond, IntPredicate up) throws InterruptedException {
    long period = 1_000_000_000L / Math.max(1, perSecond);
    long start = System.nanoTime();
    int started = 0;
    for (long at = start; at - start < d.toNanos(); at += period) {
      long wait = at - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      Variant v;
      int slot;
      synchronized (random) {
        v = Variant.values()[random.nextInt(Variant.values().length)];
        slot = pick(up, -1);
      }
      if (slot < 0) {
        tally.add(BURST, "skipped, no instance up");
        continue;
      }
      inFlight.incrementAndGet();
      try {
        workers.execute(
            () -> {
              try {
                run(v, slot, up);
              } catch (RuntimeException e) {
                tally.add(BURST, "failed, " + e.getClass().getSimpleName());
              } finally {
                finished();
              }
            });
        started++;
      } catch (RejectedExecutionException e) {
        finished();
        tally.add(BURST, "skipped, all workers busy");
      }
    }
    awaitIdle(settings.longestTry());
    return started;
  }

  private void finished() {
    synchronized (inFlight) {
      inFlight.decrementAndGet();
      inFlight.notifyAll();
    }
  }

  private void awaitIdle(Duration bound) throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    synchronized (inFlight) {
      long left;
      while (inFlight.get() > 0 && (left = deadline - System.nanoTime()) > 0) {
        TimeUnit.NANOSECONDS.timedWait(inFlight, left);
      }
    }
  }

  /** A random slot that is up other than {@code not}; -1 when there is none. Holds random. */
  private int pick(IntPredicate up, int not) {
    List<Integer> candidates = new ArrayList<>();
    for (int s = 0; s < slotCount; s++) {
      if (s != not && up.test(s)) {
        candidates.add(s);
      }
    }
    return candidates.isEmpty() ? -1 : candidates.get(random.nextInt(candidates.size()));
  }

  /** Tries by kind (and {@value #BURST}) and outcome. */
  public Map<String, Map<String, Long>> tally() {
    return tally.snapshot();
  }

  private Outcome attempt(Variant v, int slot, IntPredicate up) {
    int other = -1;
    if (v.kind() == Kind.RESEND_ELSEWHERE) {
      synchronized (random) {
        other = pick(up, slot);
      }
      if (other < 0) {
        return new Outcome(v, List.of(), "no other instance up");
      }
    }
    List<ChaosEvent> batch = new ArrayList<>();
    for (int i = 0; i < settings.batch(); i++) {
      ChaosEvent e = ledger.next(null);
      if (e == null) {
        return new Outcome(v, List.of(), "ledger full");
      }
      batch.add(e);
    }
    int process = FIRST_PROCESS + (int) (tries.getAndIncrement() % 1_000_000);
    InetSocketAddress to = slots.apply(slot);
    RawRequest req = RawRequest.of(to, apiKey, batch);
    Post post = new Post(process, v, batch);
    List<Try> done = new ArrayList<>();
    switch (v) {
      case HEADERS_THEN_CLOSE ->
          done.add(post.send(slot, null, Sends.NONE, s -> RawExchange.cut(s, req.head())));
      case WRONG_KEY_THEN_CLOSE ->
          done.add(
              post.send(
                  slot,
                  settings.wrongKeySource(),
                  Sends.NONE,
                  s ->
                      RawExchange.cut(
                          s, req.withKey(to, apiKey.substring(0, apiKey.length() / 2)).head())));
      case CUT_IN_KEY_HEADER ->
          done.add(post.send(slot, null, Sends.NONE, s -> RawExchange.cut(s, req.headCutInKey())));
      case HALF_BODY_THEN_CLOSE ->
          done.add(
              post.send(
                  slot, null, Sends.FIRST, s -> RawExchange.cut(s, req.head(), req.halfBody())));
      case HALF_BODY_THEN_RESET ->
          done.add(
              post.send(
                  slot, null, Sends.FIRST, s -> RawExchange.reset(s, req.head(), req.halfBody())));
      case WHOLE_BODY_THEN_CLOSE ->
          done.add(
              post.send(slot, null, Sends.FIRST, s -> RawExchange.cut(s, req.head(), req.body())));
      case WHOLE_BODY_THEN_RESET ->
          done.add(
              post.send(
                  slot, null, Sends.FIRST, s -> RawExchange.reset(s, req.head(), req.body())));
      case SLOW_WITHIN_TIMEOUT ->
          done.add(
              post.send(
                  slot,
                  null,
                  Sends.FIRST,
                  s -> exchange.slowly(s, req, settings.slowChunks(), settings.slowWithin())));
      case SLOW_PAST_TIMEOUT ->
          done.add(
              post.send(
                  slot,
                  null,
                  Sends.FIRST,
                  s -> exchange.slowly(s, req, settings.slowChunks(), settings.slowPast())));
      case RESEND_AFTER_ANSWER -> {
        done.add(post.send(slot, null, Sends.FIRST, s -> exchange.answer(s, req)));
        RawRequest again = req.to(slots.apply(other), apiKey);
        done.add(post.send(other, null, Sends.AGAIN, s -> exchange.answer(s, again)));
      }
      case RESEND_WITHOUT_WAITING -> {
        done.add(
            post.send(slot, null, Sends.FIRST, s -> RawExchange.cut(s, req.head(), req.body())));
        RawRequest again = req.to(slots.apply(other), apiKey);
        done.add(post.send(other, null, Sends.AGAIN, s -> exchange.answer(s, again)));
      }
    }
    return new Outcome(v, done, null);
  }

  /** Whether a connection marks its events sent: not at all, as a first send, or as a resend. */
  private enum Sends {
    NONE,
    FIRST,
    AGAIN
  }

  /** What is done on a connected socket; returns the result. */
  @FunctionalInterface
  private interface Exchange {
    String on(Socket s) throws IOException;
  }

  /** The connections of one try, all on one history process (one after the other). */
  private final class Post {
    final int process;
    final Variant variant;
    final List<ChaosEvent> batch;
    final List<Op.Written> written;

    Post(int process, Variant variant, List<ChaosEvent> batch) {
      this.process = process;
      this.variant = variant;
      this.batch = batch;
      this.written =
          batch.stream().map(e -> new Op.Written(e.deviceId(), e.ts(), e.eventId())).toList();
    }

    Try send(int slot, InetAddress source, Sends sends, Exchange exchange) {
      Op invoked = history.invoke(process, Op.Fn.POST, slot, directSlot.test(slot), written, null);
      String result = null;
      boolean connected = false;
      try (Socket s = new Socket()) {
        s.setTcpNoDelay(true);
        InetSocketAddress to = slots.apply(slot);
        // a loopback source reaches a loopback instance only
        if (source != null && to.getAddress() != null && to.getAddress().isLoopbackAddress()) {
          s.bind(new InetSocketAddress(source, 0));
        }
        s.connect(to, millis(settings.connect()));
        connected = true;
        s.setSoTimeout(millis(settings.read()));
        if (sends != Sends.NONE) {
          ledger.sent(batch, sends == Sends.AGAIN);
        }
        result = exchange.on(s);
      } catch (IOException e) {
        result = RawExchange.describe(e, connected);
      } finally {
        if (result == null) { // an unexpected error: whether anything arrived is unknown
          history.complete(
              invoked, Op.Type.INFO, null, OUTCOME_PREFIX + variant.label() + ": error");
        }
      }
      Op.Type type = type(variant, result, connected);
      history.complete(invoked, type, null, OUTCOME_PREFIX + variant.label() + ": " + result);
      if (type == Op.Type.OK) {
        ledger.acked(batch, System.currentTimeMillis());
      }
      return new Try(slot, result, type);
    }
  }

  /**
   * How the history has a connection: nothing sent, or a body that cannot parse (half a JSON
   * array), did not happen; a whole body without its answer may have; otherwise the answer says.
   */
  static Op.Type type(Variant v, String result, boolean connected) {
    if (!connected) {
      return Op.Type.FAIL;
    }
    return switch (v.kind()) {
      case CLOSE_DURING_AUTH, CLOSE_MID_BODY -> Op.Type.FAIL;
      case CLOSE_AFTER_BODY -> Op.Type.INFO;
      case SLOW_CLIENT, RESEND_ELSEWHERE -> answerType(result);
    };
  }

  /** 2xx happened; 4xx did not; a 5xx, a cut or a lost answer: unknown. */
  static Op.Type answerType(String result) {
    if (result.length() == 3 && result.startsWith("2")) {
      return Op.Type.OK;
    }
    if (result.length() == 3 && result.startsWith("4")) {
      return Op.Type.FAIL;
    }
    return Op.Type.INFO;
  }

  private static int millis(Duration d) {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, d.toMillis()));
  }

  /** Stops the burst's workers; tries still running end within their timeouts. */
  @Override
  public void close() throws InterruptedException {
    workers.shutdown();
    if (!workers.awaitTermination(settings.longestTry().toMillis(), TimeUnit.MILLISECONDS)) {
      workers.shutdownNow();
    }
  }
}
