package io.ambergarden.bus;

/** The events of a {@link PersistRequest} are durable at the configured write consistency. */
public record PersistResult(int written) {}
