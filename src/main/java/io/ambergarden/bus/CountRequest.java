package io.ambergarden.bus;

import io.ambergarden.event.Event;
import java.util.List;

/**
 * Durably written events whose counter increments are to be applied; the reply comes once they are
 * written.
 */
public record CountRequest(List<Event> events) {
  public CountRequest {
    events = List.copyOf(events);
  }
}
