package io.ambergarden.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Failed authentications per client address, checked before a credential is looked up: an address
 * may fail {@code perMinute} times at once, then once per minute/{@code perMinute}. Only failures
 * count, so many devices behind one NAT address with valid keys are never held back, while a client
 * trying random key ids is stopped before each try costs a store read. At most {@code maxTracked}
 * addresses are remembered, each until its allowance is full again. Thread-safe.
 */
public final class AddressFailures {
  private static final long MINUTE_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final double perMinute;
  private final LongSupplier nanos;
  private final Cache<String, Allowance> addresses;

  /** Tokens left, refilled continuously; guarded by itself. */
  private static final class Allowance {
    double tokens;
    long last;

    Allowance(double tokens, long last) {
      this.tokens = tokens;
      this.last = last;
    }
  }

  public AddressFailures(int perMinute, int maxTracked, LongSupplier nanoClock) {
    this.perMinute = perMinute;
    this.nanos = nanoClock;
    this.addresses =
        Caffeine.newBuilder()
            .maximumSize(maxTracked)
            .expireAfterAccess(1, TimeUnit.MINUTES) // by then the allowance is full again
            .ticker(nanoClock::getAsLong)
            .executor(Runnable::run)
            .build();
  }

  /** 0 when {@code address} may try to authenticate, else nanoseconds until it may. */
  public long waitNanos(String address) {
    Allowance a = addresses.getIfPresent(address);
    if (a == null) {
      return 0;
    }
    synchronized (a) {
      refill(a, nanos.getAsLong());
      return a.tokens >= 1 ? 0 : (long) Math.ceil((1 - a.tokens) * MINUTE_NANOS / perMinute);
    }
  }

  /** Counts one failed authentication of {@code address}. */
  public void failed(String address) {
    long now = nanos.getAsLong();
    Allowance a = addresses.get(address, k -> new Allowance(perMinute, now));
    synchronized (a) {
      refill(a, now);
      a.tokens = Math.max(0, a.tokens - 1);
    }
  }

  /** Addresses tracked now. */
  public long tracked() {
    addresses.cleanUp();
    return addresses.estimatedSize();
  }

  private void refill(Allowance a, long now) {
    if (now > a.last) {
      a.tokens = Math.min(perMinute, a.tokens + (now - a.last) * perMinute / MINUTE_NANOS);
      a.last = now;
    }
  }
}
