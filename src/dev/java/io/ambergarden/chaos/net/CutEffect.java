package io.ambergarden.chaos.net;

/** What a cut packet meets. Jepsen uses both. */
public enum CutEffect {
  /** Silently dropped: connects and requests time out (a pulled cable). */
  DROP,
  /** Answered with a TCP reset: connects are refused and requests fail at once. */
  RESET
}
