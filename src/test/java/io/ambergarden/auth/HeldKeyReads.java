package io.ambergarden.auth;

import io.ambergarden.config.SecurityConfig;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Gatekeeper} whose key store is a map in memory, on a clock the test moves. While {@link
 * #hold()} is on, every key read waits until the test calls {@link #releaseAll()}, so a test can
 * close connections while their key is being checked.
 */
public final class HeldKeyReads {
  private final Map<String, KeyRecord> keys = new ConcurrentHashMap<>();
  private final List<Held> held = new ArrayList<>();
  private final AtomicLong now = new AtomicLong(System.currentTimeMillis());
  private final Gatekeeper gate;
  private boolean holding;

  private record Held(String id, Promise<Optional<KeyRecord>> answer) {}

  public HeldKeyReads(SecurityConfig.Access cfg) {
    this.gate =
        new Gatekeeper(
            cfg, new KeyStore(null, "unused"), this::read, StaticKeys.none(), null, new Moved());
  }

  public Gatekeeper gatekeeper() {
    return gate;
  }

  /** A new key with these scopes and a rate no test reaches; returns the text a client sends. */
  public String mint(Set<Scope> scopes) {
    ApiKeys.Minted m = ApiKeys.mint();
    keys.put(
        m.id(),
        new KeyRecord(
            m.id(),
            "held-" + m.id(),
            m.hash(),
            scopes,
            List.of(),
            1_000_000,
            Instant.now(),
            "test",
            null));
    return m.text();
  }

  /** Reads the key now, so the gatekeeper remembers it. */
  public Future<Principal> warm(String keyText) {
    return gate.authenticate(Credential.from("Bearer " + keyText, null, null).orElseThrow());
  }

  /** Moves the clock: past auth.key-cache.refresh, a remembered key is read again. */
  public void advance(long millis) {
    now.addAndGet(millis);
  }

  public synchronized void hold() {
    holding = true;
  }

  /** Reads waiting now. */
  public synchronized int waiting() {
    return held.size();
  }

  /** Answers every waiting read and stops holding. */
  public void releaseAll() {
    List<Held> answered;
    synchronized (this) {
      holding = false;
      answered = new ArrayList<>(held);
      held.clear();
    }
    answered.forEach(h -> h.answer().complete(Optional.ofNullable(keys.get(h.id()))));
  }

  private Future<Optional<KeyRecord>> read(String id) {
    synchronized (this) {
      if (holding) {
        Promise<Optional<KeyRecord>> p = Promise.promise();
        held.add(new Held(id, p));
        return p.future();
      }
    }
    return Future.succeededFuture(Optional.ofNullable(keys.get(id)));
  }

  private final class Moved extends Clock {
    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public long millis() {
      return now.get();
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(now.get());
    }
  }
}
