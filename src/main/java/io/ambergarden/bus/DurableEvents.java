package io.ambergarden.bus;

import io.ambergarden.event.Event;
import java.util.List;

/** Events that were just written durably. */
public record DurableEvents(List<Event> events, PersistRequest.Source source) {}
