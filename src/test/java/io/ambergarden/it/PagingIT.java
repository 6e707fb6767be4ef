package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.localrt.RealServers;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealServers.class)
@Timeout(300)
class PagingIT {
  static final long HOUR = 3_600_000L;
  static TestService s;

  record Ev(long ts, String id) {}

  static final Comparator<Ev> NEWEST_FIRST =
      Comparator.comparingLong(Ev::ts).reversed().thenComparing(Ev::id);

  @BeforeAll
  static void start() {
    s =
        TestService.start(
            Map.of(
                "ingest.mode",
                "direct",
                "kafka.consumer.enabled",
                "false",
                "query.max-buckets-per-page",
                "2"));
  }

  @AfterAll
  static void stop() {
    if (s != null) {
      s.close();
    }
  }

  static void post(String device, String type, List<Ev> events) {
    for (int i = 0; i < events.size(); i += 100) {
      StringBuilder b = new StringBuilder("[");
      for (Ev e : events.subList(i, Math.min(events.size(), i + 100))) {
        b.append(b.length() > 1 ? "," : "")
            .append("{\"deviceId\":\"")
            .append(device)
            .append("\",\"ts\":")
            .append(e.ts())
            .append(",\"eventId\":\"")
            .append(e.id())
            .append('"')
            .append(type == null ? "" : ",\"deviceType\":\"" + type + "\"")
            .append('}');
      }
      HttpResponse<String> r = s.postEvents(b.append(']').toString());
      assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
    }
  }

  static JsonObject page(String path, String cursor) {
    String sep = path.contains("?") ? "&" : "?";
    HttpResponse<String> r =
        s.get(
            path
                + (cursor == null
                    ? ""
                    : sep + "cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8)));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return new JsonObject(r.body());
  }

  /**
   * How a walk through the pages ended: pages read, and whether the last one had no next cursor.
   */
  record Walk(int pages, boolean exhausted) {}

  /**
   * Follows next cursors from the first page, at most {@code maxPages}; {@code onPage} gets (page
   * number, page).
   */
  static Walk pageThrough(String path, int maxPages, BiConsumer<Integer, JsonObject> onPage) {
    String cursor = null;
    int pages = 0;
    do {
      JsonObject p = page(path, cursor);
      cursor = p.getString("next");
      onPage.accept(++pages, p);
    } while (cursor != null && pages < maxPages);
    return new Walk(pages, cursor == null);
  }

  static List<Ev> evs(JsonArray items) {
    List<Ev> out = new ArrayList<>();
    items.forEach(
        o ->
            out.add(new Ev(((JsonObject) o).getLong("ts"), ((JsonObject) o).getString("eventId"))));
    return out;
  }

  @Test
  void pagingAcrossBucketsReturnsEveryEventOnceInOrderUnderConcurrentInserts() {
    String device = "page-" + UUID.randomUUID().toString().substring(0, 8);
    long now = System.currentTimeMillis();
    List<Ev> stored = new ArrayList<>();
    for (int i = 0; i < 240; i++) {
      // five hours, so five buckets; every fourth event shares its ts with the one before (tie on
      // event id)
      long ts = now - 5 * HOUR + (i / 2) * (5 * HOUR / 120) + 1;
      stored.add(new Ev(i % 4 == 1 ? stored.get(i - 1).ts() : ts, String.format("e%03d", i)));
    }
    post(device, null, stored);

    String path = "/api/v1/devices/" + device + "/events?limit=37";
    List<Ev> seen = new ArrayList<>();
    List<Ev> lateOlder = new ArrayList<>();
    Walk walk =
        pageThrough(
            path,
            100,
            (n, p) -> {
              seen.addAll(evs(p.getJsonArray("items")));
              if (n == 2) {
                // inserted while paging: newer than the cursor (never shown) and older than it
                // (must appear once)
                long oldest = seen.get(seen.size() - 1).ts();
                post(device, null, List.of(new Ev(now, "new-1"), new Ev(now - 1, "new-2")));
                for (int i = 0; i < 5; i++) {
                  lateOlder.add(new Ev(oldest - 1000 - i * 7_000_000L % (4 * HOUR), "late-" + i));
                }
                post(device, null, lateOlder);
              }
            });
    assertThat(walk.exhausted()).isTrue();
    List<Ev> expected = new ArrayList<>(stored);
    expected.addAll(lateOlder);
    expected.sort(NEWEST_FIRST);
    assertThat(seen).containsExactlyElementsOf(expected);
    assertThat(walk.pages()).isGreaterThan(240 / 37);
  }

  /**
   * A first page reads the current bucket beside the bucket index and uses it only when the index
   * names it first: the same pages whether the current bucket holds events or not.
   */
  @Test
  void firstPagesAreTheSameWhetherTheCurrentBucketHoldsEventsOrNot() {
    long now = System.currentTimeMillis();
    String old = "old-only-" + UUID.randomUUID().toString().substring(0, 8);
    List<Ev> olderHours = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      olderHours.add(new Ev(now - 3 * HOUR - i * 60_000L, String.format("o%02d", i)));
      olderHours.add(new Ev(now - 5 * HOUR - i * 60_000L, String.format("p%02d", i)));
    }
    post(old, null, olderHours);
    String both = "current-too-" + UUID.randomUUID().toString().substring(0, 8);
    List<Ev> current = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      // within the current hour: from the hour's start on, never after now
      long hourStart = now - now % HOUR;
      current.add(new Ev(hourStart + (now - hourStart) * i / 12, String.format("c%02d", i)));
    }
    List<Ev> all = new ArrayList<>(current);
    all.addAll(olderHours);
    post(both, null, all);
    olderHours.sort(NEWEST_FIRST);
    all.sort(NEWEST_FIRST);

    for (int limit : new int[] {5, 12, 40, 100}) {
      for (String[] device : new String[][] {{old, "o"}, {both, "b"}}) {
        List<Ev> expected = device[1].equals("o") ? olderHours : all;
        // this service reads at most two buckets per page
        List<Long> firstTwo =
            expected.stream().map(e -> e.ts() - e.ts() % HOUR).distinct().limit(2).toList();
        List<Ev> inBudget =
            expected.stream().filter(e -> firstTwo.contains(e.ts() - e.ts() % HOUR)).toList();
        String path = "/api/v1/devices/" + device[0] + "/events?limit=" + limit;
        assertThat(evs(page(path, null).getJsonArray("items")))
            .as("first page of %s, limit %d", device[0], limit)
            .containsExactlyElementsOf(inBudget.subList(0, Math.min(limit, inBudget.size())));
        List<Ev> seen = new ArrayList<>();
        pageThrough(path, 100, (n, p) -> seen.addAll(evs(p.getJsonArray("items"))));
        assertThat(seen).as("every page of %s, limit %d", device[0], limit).isEqualTo(expected);
      }
    }
  }

  @Test
  void bucketBudgetEndsPagesEarlyButLosesNothing() {
    String device = "budget-" + UUID.randomUUID().toString().substring(0, 8);
    long now = System.currentTimeMillis();
    List<Ev> stored = new ArrayList<>();
    for (int h = 0; h < 6; h++) {
      stored.add(new Ev(now - h * HOUR - 1000, "h" + h));
    }
    post(device, null, stored);
    String path = "/api/v1/devices/" + device + "/events?limit=1000";
    List<Ev> seen = new ArrayList<>();
    Walk walk =
        pageThrough(
            path,
            20,
            (n, p) -> {
              assertThat(p.getJsonArray("items").size()).isLessThanOrEqualTo(2 + 1);
              seen.addAll(evs(p.getJsonArray("items")));
            });
    stored.sort(NEWEST_FIRST);
    assertThat(seen).containsExactlyElementsOf(stored);
    assertThat(walk.pages()).isGreaterThanOrEqualTo(3);
  }

  @Test
  void tamperedForgedOrForeignCursorIs400() {
    String device = "tamper-" + UUID.randomUUID().toString().substring(0, 8);
    long now = System.currentTimeMillis();
    post(device, null, List.of(new Ev(now - 3, "a"), new Ev(now - 2, "b"), new Ev(now - 1, "c")));
    String path = "/api/v1/devices/" + device + "/events?limit=1";
    String cursor = page(path, null).getString("next");
    assertThat(cursor).isNotNull();
    assertThat(page(path, cursor).getJsonArray("items").getJsonObject(0).getString("eventId"))
        .isEqualTo("b");

    char last = cursor.charAt(cursor.length() / 2);
    String altered =
        cursor.substring(0, cursor.length() / 2)
            + (last == 'A' ? 'B' : 'A')
            + cursor.substring(cursor.length() / 2 + 1);
    for (String bad : List.of(altered, "garbage", cursor + "x", "")) {
      HttpResponse<String> r =
          s.get(path + "&cursor=" + URLEncoder.encode(bad, StandardCharsets.UTF_8));
      assertThat(r.statusCode()).as(bad).isEqualTo(400);
      assertThat(new JsonObject(r.body()).getString("detail")).contains("cursor");
    }
    // a valid cursor, but for another query: other limit, other device
    assertThat(s.get("/api/v1/devices/" + device + "/events?limit=2&cursor=" + cursor).statusCode())
        .isEqualTo(400);
    assertThat(s.get("/api/v1/devices/other/events?limit=1&cursor=" + cursor).statusCode())
        .isEqualTo(400);
  }

  @Test
  void deviceTypePagesMergeSaltsNewestFirst() {
    String type = "type" + UUID.randomUUID().toString().substring(0, 8).replace("-", "");
    long now = System.currentTimeMillis();
    List<Ev> all = new ArrayList<>();
    Set<String> keys = new HashSet<>();
    for (int d = 0; d < 12; d++) {
      List<Ev> mine = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        Ev e = new Ev(now - 1000 - (d * 5 + i) * 1000L % 7000, "d" + d + "-" + i);
        mine.add(e);
      }
      post("dev-" + type + "-" + d, type, mine);
      all.addAll(mine);
    }
    String path = "/api/v1/device-types/" + type + "/events?limit=7";
    List<JsonObject> seen = new ArrayList<>();
    pageThrough(path, 50, (n, p) -> p.getJsonArray("items").forEach(o -> seen.add((JsonObject) o)));
    assertThat(seen).hasSize(all.size());
    for (JsonObject o : seen) {
      assertThat(keys.add(o.getString("deviceId") + "/" + o.getString("eventId"))).isTrue();
      assertThat(o.getString("deviceType")).isEqualTo(type);
    }
    for (int i = 1; i < seen.size(); i++) {
      assertThat(seen.get(i).getLong("ts")).isLessThanOrEqualTo(seen.get(i - 1).getLong("ts"));
    }
  }
}
