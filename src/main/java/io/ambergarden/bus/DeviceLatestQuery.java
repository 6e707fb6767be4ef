package io.ambergarden.bus;

/**
 * The latest event of a device by event time. Replied to with the {@link
 * io.ambergarden.event.Event}; {@link FailureCode#NOT_FOUND} when the device has none.
 */
public final class DeviceLatestQuery {
  public static final Endpoint<Request, io.ambergarden.event.Event> ENDPOINT =
      new Endpoint<>("amber.query.device-latest", Request.class, io.ambergarden.event.Event.class);

  public record Request(String deviceId) {}

  private DeviceLatestQuery() {}
}
