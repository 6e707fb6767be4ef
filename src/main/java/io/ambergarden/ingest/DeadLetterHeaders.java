package io.ambergarden.ingest;

import io.ambergarden.event.AvroEvents;
import io.ambergarden.event.FieldError;
import java.util.List;
import java.util.stream.Collectors;

/** Header names and values of a dead letter. The value of the dead letter is the original bytes. */
public final class DeadLetterHeaders {
  public static final String SOURCE_TOPIC = "amber.source.topic";
  public static final String SOURCE_PARTITION = "amber.source.partition";
  public static final String SOURCE_OFFSET = "amber.source.offset";
  public static final String ERROR_CLASS = "amber.error.class";
  public static final String ERROR_MESSAGE = "amber.error.message";
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
    String all =
        errors.stream().map(e -> e.field() + ": " + e.message()).collect(Collectors.joining("; "));
    return all.length() <= MAX_MESSAGE_CHARS ? all : all.substring(0, MAX_MESSAGE_CHARS) + "...";
  }
}
