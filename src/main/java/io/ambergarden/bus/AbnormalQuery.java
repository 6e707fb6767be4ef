package io.ambergarden.bus;

import java.util.List;

/** Distinct abnormal devices in the last {@code minutes}, by code. */
public final class AbnormalQuery {
  public static final Endpoint<Request, Reply> ENDPOINT =
      new Endpoint<>("amber.query.abnormal", Request.class, Reply.class);

  public record Request(int minutes) {}

  /** One code's devices; {@code code} is null for abnormal events without a code (by status). */
  public record CodeDevices(Integer code, int devices, List<String> deviceIds) {
    public CodeDevices {
      deviceIds = List.copyOf(deviceIds);
    }
  }

  /** {@code truncated} when more distinct devices were seen than one answer remembers. */
  public record Reply(
      int minutes, long from, long to, int devices, List<CodeDevices> byCode, boolean truncated) {
    public Reply {
      byCode = List.copyOf(byCode);
    }
  }

  private AbnormalQuery() {}
}
