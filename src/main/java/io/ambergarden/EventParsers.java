package io.ambergarden;

import io.ambergarden.config.AmberConfig;
import io.ambergarden.event.EventLimits;
import io.ambergarden.event.EventParser;
import java.time.Clock;

/** The event parser configured from the service config. */
public final class EventParsers {
  private EventParsers() {}

  public static EventParser create(AmberConfig config, Clock clock) {
    EventLimits limits =
        EventLimits.defaults()
            .withBatchAndTime(
                config.ingest().maxBatch(),
                config.events().maxPayloadBytes(),
                config.events().retention(),
                config.events().futureSkew());
    return new EventParser(limits, clock);
  }
}
