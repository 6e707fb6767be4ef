package io.ambergarden.bus;

import io.ambergarden.event.Event;
import java.util.List;

/** One page of events, newest first; {@code next} is null on the last page. */
public record EventPage(List<Event> items, PagePosition next) {
  public EventPage {
    items = List.copyOf(items);
  }
}
