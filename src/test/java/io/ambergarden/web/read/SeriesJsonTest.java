package io.ambergarden.web.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.bus.SeriesQuery;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

class SeriesJsonTest {
  @Test
  void aSeriesIsRenderedWithTheContractsNamesAndTheStepsShortestName() {
    SeriesQuery.Reply r =
        new SeriesQuery.Reply(
            "M-1",
            "temp",
            300_000L,
            1_000L,
            901_000L,
            List.of(
                new SeriesQuery.Point(0L, 2, 1.5, 2.5, 2.0),
                new SeriesQuery.Point(300_000L, 1, -3, -3, -3)));
    assertThat(ReadJson.series(r))
        .isEqualTo(
            new JsonObject(
                "{\"deviceId\":\"M-1\",\"metric\":\"temp\",\"step\":\"5m\",\"from\":1000,"
                    + "\"to\":901000,\"points\":["
                    + "{\"t\":0,\"count\":2,\"min\":1.5,\"max\":2.5,\"avg\":2.0},"
                    + "{\"t\":300000,\"count\":1,\"min\":-3.0,\"max\":-3.0,\"avg\":-3.0}]}"));
  }

  @Test
  void aSeriesWithoutPointsHasAnEmptyList() {
    JsonObject json =
        ReadJson.series(new SeriesQuery.Reply("M-1", "x", 86_400_000L, 0, 1, List.of()));
    assertThat(json.getString("step")).isEqualTo("1d");
    assertThat(json.getJsonArray("points")).isEmpty();
  }
}
