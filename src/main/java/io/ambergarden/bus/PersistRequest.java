package io.ambergarden.bus;

import io.ambergarden.event.Event;
import java.util.List;

/** Events to write. Travels by reference on the local event bus (see {@link LocalCodec}). */
public record PersistRequest(List<Event> events, Source source) {
  public enum Source {
    HTTP,
    KAFKA
  }

  public PersistRequest {
    events = List.copyOf(events);
  }
}
