package io.ambergarden.bus;

import io.ambergarden.event.Event;
import java.util.List;

/**
 * One page of events, in the order of the query that asked (newest first, or oldest first for an
 * export); {@code next} is null on the last page.
 */
public record EventPage(List<Event> items, PagePosition next) {
  public EventPage {
    items = List.copyOf(items);
  }
}
