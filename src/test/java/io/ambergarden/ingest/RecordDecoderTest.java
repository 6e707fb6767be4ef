package io.ambergarden.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.event.EventParser;
import io.ambergarden.event.FieldError;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RecordDecoderTest {

  private static byte[] event(String payloadBlob) {
    return ("{\"deviceId\":\"d-1\",\"ts\":"
            + System.currentTimeMillis()
            + ",\"eventId\":\"e-1\",\"status\":\"normal\",\"payload\":{\"blob\":\""
            + payloadBlob
            + "\"}}")
        .getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aValueOverTheSizeCapIsAPoisonRecordNamingItsSizeAndTheCap() {
    RecordDecoder decoder = new RecordDecoder(new EventParser(), 4 * 1024 * 1024);
    byte[] fiveMegabytes = event("x".repeat(5 * 1024 * 1024));

    EventParser.SingleResult result = decoder.decode(fiveMegabytes);

    assertThat(result.ok()).isFalse();
    assertThat(result.errors()).hasSize(1);
    FieldError e = result.errors().get(0);
    assertThat(e.field()).isEqualTo(FieldError.DOCUMENT);
    assertThat(e.message())
        .isEqualTo(
            "record value of "
                + fiveMegabytes.length
                + " bytes (decompressed) exceeds the event size cap of 4194304 bytes");
    assertThat(DeadLetterHeaders.errorClass(result.errors())).isEqualTo("InvalidDocument");
  }

  @Test
  void aValueAtTheCapIsParsedAsUsual() {
    byte[] ok = event("small");
    EventParser.SingleResult result = new RecordDecoder(new EventParser(), ok.length).decode(ok);
    assertThat(result.ok()).isTrue();
    assertThat(result.event().deviceId()).isEqualTo("d-1");
  }

  @Test
  void theDefaultCapIsTheDefaultRequestBodyCap() {
    RecordDecoder decoder = new RecordDecoder(new EventParser());
    EventParser.SingleResult result = decoder.decode(new byte[4 * 1024 * 1024 + 1]);
    assertThat(result.errors().get(0).message()).contains("exceeds the event size cap");
  }
}
