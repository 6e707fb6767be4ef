package io.ambergarden.ingest;

import io.ambergarden.event.AvroEvents;
import io.ambergarden.event.EventParser;
import io.ambergarden.event.FieldError;
import java.util.List;

/**
 * The consumer's parse step: one record value of amber.events, Avro single-object encoded (it
 * starts with C3 01, which no UTF-8 JSON document can) or JSON, both on the same topic. Errors come
 * back as field errors; {@link DeadLetterHeaders#errorClass} names them. A value over the size cap
 * (a compressed record can be far larger once decompressed) is refused before any parsing.
 */
public final class RecordDecoder {
  /** The cap when none is given: the default of http.max-body-bytes. */
  public static final long DEFAULT_MAX_VALUE_BYTES = 4L * 1024 * 1024;

  private final EventParser json;
  private final AvroEvents avro;
  private final long maxValueBytes;

  public RecordDecoder(EventParser json) {
    this(json, DEFAULT_MAX_VALUE_BYTES);
  }

  /**
   * @param maxValueBytes largest value parsed: no single event over HTTP can be larger than the
   *     largest request body, so the service passes http.max-body-bytes
   */
  public RecordDecoder(EventParser json, long maxValueBytes) {
    if (maxValueBytes < 1) {
      throw new IllegalArgumentException("maxValueBytes must be positive");
    }
    this.json = json;
    this.avro = new AvroEvents(json.limits(), json.clock());
    this.maxValueBytes = maxValueBytes;
  }

  public EventParser.SingleResult decode(byte[] value) {
    if (value.length > maxValueBytes) {
      return new EventParser.SingleResult(
          null,
          List.of(
              new FieldError(
                  -1,
                  FieldError.DOCUMENT,
                  "record value of "
                      + value.length
                      + " bytes (decompressed) exceeds the event size cap of "
                      + maxValueBytes
                      + " bytes")));
    }
    return AvroEvents.isSingleObject(value) ? avro.decode(value) : json.parseOne(value);
  }
}
