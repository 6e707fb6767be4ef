package io.ambergarden.web.read;

/**
 * How many rate-limit tokens an export owes for the events it read: one per {@code eventsPerToken}
 * events (the request itself paid one on admission). The export takes what it owes before it reads
 * the next page, waiting for the key's rate when the bucket is empty, so a long export is paced to
 * the key's rate instead of failing. Plain state of one export, used from its event loop.
 */
final class ExportTokens {
  private final int eventsPerToken;
  private long events;
  private long taken;

  ExportTokens(int eventsPerToken) {
    if (eventsPerToken < 1) {
      throw new IllegalArgumentException("eventsPerToken must be at least 1");
    }
    this.eventsPerToken = eventsPerToken;
  }

  /** Counts events read. */
  void read(int count) {
    if (count < 0) {
      throw new IllegalArgumentException("negative count");
    }
    events += count;
  }

  /** Tokens owed and not yet taken. */
  long owed() {
    return events / eventsPerToken - taken;
  }

  /** One owed token was granted. */
  void took() {
    if (owed() <= 0) {
      throw new IllegalStateException("no token is owed");
    }
    taken++;
  }

  long events() {
    return events;
  }
}
