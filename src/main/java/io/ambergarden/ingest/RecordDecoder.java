package io.ambergarden.ingest;

import io.ambergarden.event.AvroEvents;
import io.ambergarden.event.EventParser;

/**
 * The consumer's parse step: one record value of amber.events, Avro single-object encoded (it
 * starts with C3 01, which no UTF-8 JSON document can) or JSON, both on the same topic. Errors come
 * back as field errors; {@link DeadLetterHeaders#errorClass} names them.
 */
public final class RecordDecoder {
  private final EventParser json;
  private final AvroEvents avro;

  public RecordDecoder(EventParser json) {
    this.json = json;
    this.avro = new AvroEvents(json.limits(), json.clock());
  }

  public EventParser.SingleResult decode(byte[] value) {
    return AvroEvents.isSingleObject(value) ? avro.decode(value) : json.parseOne(value);
  }
}
