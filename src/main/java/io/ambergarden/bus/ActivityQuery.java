package io.ambergarden.bus;

/** Distinct devices that sent events in the last {@code minutes} (event time). */
public final class ActivityQuery {
  public static final Endpoint<Request, Reply> ENDPOINT =
      new Endpoint<>("amber.query.activity", Request.class, Reply.class);

  public record Request(int minutes) {}

  /** {@code truncated} when more distinct devices were seen than one answer counts. */
  public record Reply(int minutes, long from, long to, int devices, boolean truncated) {}

  private ActivityQuery() {}
}
