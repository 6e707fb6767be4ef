package io.ambergarden.event;

/**
 * One validation problem. {@code field} is a path such as {@code ts} or {@code metrics.temperature}, or
 * {@code $} for the document itself; {@code index} is the event's position in the batch, -1 when the
 * problem is not tied to one event.
 */
public record FieldError(int index, String field, String message) {
}
