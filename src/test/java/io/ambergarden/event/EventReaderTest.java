package io.ambergarden.event;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EventReaderTest {

  @ParameterizedTest
  @CsvSource(
      nullValues = "null",
      value = {
        "DeviceId, deviceId",
        "TS, ts",
        "EVENTID, eventId",
        "devicetype, deviceType",
        "Payload, payload",
        "temperature, null",
        "t, null",
        "deviceIdentifier, null"
      })
  void aKnownNameInTheWrongCaseIsRecognised(String name, String known) {
    assertThat(EventReader.caseMismatch(name)).isEqualTo(known);
  }
}
