package io.ambergarden.ingest;

import io.ambergarden.event.AvroEvents;
import io.ambergarden.event.FieldError;
import io.vertx.core.eventbus.ReplyException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Header names and values of a dead letter. The value of the dead letter is the original bytes, and
 * the original record's headers come first, followed by these. A letter too large to send whole is
 * cut ({@link DeadLetters}): it then also carries {@link #TRUNCATED}, {@link #ORIGINAL_SIZE} and
 * {@link #ORIGINAL_SHA256}.
 */
public final class DeadLetterHeaders {
  public static final String SOURCE_TOPIC = "amber.source.topic";
  public static final String SOURCE_PARTITION = "amber.source.partition";
  public static final String SOURCE_OFFSET = "amber.source.offset";
  public static final String ERROR_CLASS = "amber.error.class";
  public static final String ERROR_MESSAGE = "amber.error.message";

  /** What a cut letter left out, comma-separated: {@code value}, {@code key}, {@code headers}. */
  public static final String TRUNCATED = "amber.truncated";

  /** Length in bytes of the original value, in a cut letter. */
  public static final String ORIGINAL_SIZE = "amber.original.size";

  /** SHA-256 of the original value, lower-case hex, in a cut letter. */
  public static final String ORIGINAL_SHA256 = "amber.original.sha256";

  /** Error class of a valid event that the store refused to write (or kept failing to). */
  public static final String STORE_REJECTED = "StoreRejected";

  private static final int MAX_MESSAGE_CHARS = 1000;

  private DeadLetterHeaders() {}

  /**
   * UnknownSchema for an Avro record whose schema fingerprint is not in schema/avro/;
   * InvalidDocument when the bytes are not one JSON object or Avro record (bad UTF-8, bad JSON,
   * undecodable Avro); InvalidEvent otherwise.
   */
  public static String errorClass(List<FieldError> errors) {
    if (errors.stream().anyMatch(e -> AvroEvents.SCHEMA_FIELD.equals(e.field()))) {
      return "UnknownSchema";
    }
    return errors.stream().anyMatch(e -> "$".equals(e.field()))
        ? "InvalidDocument"
        : "InvalidEvent";
  }

  public static String message(List<FieldError> errors) {
    return truncated(
        errors.stream().map(e -> e.field() + ": " + e.message()).collect(Collectors.joining("; ")));
  }

  /** The message of a store error: its text (a writer's answer) or its type and text, bounded. */
  public static String message(Throwable error) {
    return truncated(
        error instanceof ReplyException
            ? error.getMessage()
            : error.getClass().getSimpleName() + ": " + error.getMessage());
  }

  private static String truncated(String all) {
    return all.length() <= MAX_MESSAGE_CHARS ? all : all.substring(0, MAX_MESSAGE_CHARS) + "...";
  }
}
