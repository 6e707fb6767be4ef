package io.ambergarden.cassandra;

/** Finds a failure's reason in its cause chain, as the driver and Vert.x wrap it. */
public final class Causes {
  /** Deeper than any wrapping here; a chain made into a loop ends there. */
  private static final int MAX_DEPTH = 32;

  private Causes() {}

  /** The first throwable of {@code error}'s cause chain that is a {@code type}, or null. */
  public static <T extends Throwable> T find(Throwable error, Class<T> type) {
    Throwable t = error;
    for (int depth = 0; t != null && depth < MAX_DEPTH; depth++, t = t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }
}
