package io.ambergarden.chaos.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.chaos.AckLedger;
import io.ambergarden.chaos.ChaosEvent;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

class StateReaderTest {
  @Test
  void anEventServedByTheApiReadsBackAsTheRowOfTheEventSent() {
    ChaosEvent e = new AckLedger(List.of("d0"), 1_000, 10, 3).next();
    // the API embeds the payload as JSON and writes tags and metrics as objects, as EventJson does
    JsonObject served = new JsonObject(e.json().encode());
    assertThat(StateChecker.sameFields(StateReader.event(served), StateChecker.expected(e)))
        .isTrue();
    served.getJsonObject("payload").put("n", -1);
    assertThat(StateChecker.sameFields(StateReader.event(served), StateChecker.expected(e)))
        .isFalse();
  }
}
