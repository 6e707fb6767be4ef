package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.localrt.RealServers;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two writers of the same devices: two writer verticles, each with its own fleet memory, take the
 * write requests in turn (the event bus hands them out round-robin), so consecutive events of a
 * device alternate between writers that each miss half of its facet changes.
 */
@ExtendWith(RealServers.class)
@Timeout(240)
class FleetWritersIT {
  static TestService s;

  @BeforeAll
  static void start() {
    s =
        TestService.start(
            Map.of(
                "ingest.mode", "direct",
                "kafka.consumer.enabled", "false",
                "writer.instances", "2"));
  }

  @AfterAll
  static void stop() {
    if (s != null) {
      s.close();
    }
  }

  @Test
  void devicesWhoseEventsAlternateBetweenWritersAreListedUnderExactlyTheirNewestFacets() {
    String type = FleetIT.unique("writers");
    String a = type + "-a";
    String b = type + "-b";
    String c = type + "-c";
    // one request per step, so the steps alternate between the two writers
    String[][] steps = {
      {"normal", "fault", "normal"},
      {"normal", "fault", "fault"},
      {"fault", "normal", "normal"},
      {"normal", "fault", "fault"},
    };
    long t = System.currentTimeMillis() - 10_000;
    for (String[] step : steps) {
      t += 1000;
      String body =
          "["
              + String.join(
                  ",",
                  FleetIT.event(a, t, type, step[0], code(step[0])),
                  FleetIT.event(b, t, type, step[1], code(step[1])),
                  FleetIT.event(c, t, type, step[2], code(step[2])))
              + "]";
      HttpResponse<String> r = s.postEvents(body);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
    }
    // newest: a normal, b fault, c fault
    assertThat(ids("type=" + type)).containsExactly(a, b, c);
    assertThat(ids("type=" + type + "&status=normal")).containsExactly(a);
    assertThat(ids("type=" + type + "&status=fault")).containsExactly(b, c);
    assertThat(ids("type=" + type + "&abnormal=true")).containsExactly(b, c);
    assertThat(ids("type=" + type + "&abnormal=false")).containsExactly(a);
  }

  static Integer code(String status) {
    return "fault".equals(status) ? 503 : 200;
  }

  static List<String> ids(String query) {
    HttpResponse<String> r = s.get("/api/v1/devices?" + query + "&limit=100");
    assertThat(r.statusCode()).as(query + ": " + r.body()).isEqualTo(200);
    JsonObject page = new JsonObject(r.body());
    assertThat(page.getString("next")).as(query).isNull();
    JsonArray items = page.getJsonArray("items");
    List<String> out = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      out.add(items.getJsonObject(i).getString("deviceId"));
    }
    return out;
  }
}
