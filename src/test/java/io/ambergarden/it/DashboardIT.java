package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.localrt.RealServers;
import io.ambergarden.web.OpenApiSchemas;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The operator's console in a real headless Chromium, view by view: the overview's figures and
 * week, the fleet list with filters and paging, a device page (state, chart with tooltip and zoom,
 * rollups, counters, its own live feed), the live feed, the API reference at /docs, and signing
 * out. No page may break its Content-Security-Policy: Chromium logs each violation to the console,
 * and every test ends by reading that log. The service runs in a keyspace of its own with a small
 * simulated fleet, so the figures are exact and the screenshots of the overview and a device page
 * (always in target/screenshots; also in the directory named by -Damber.docs.screenshots, which is
 * how the README's pictures are made) show a fleet and nothing else.
 */
@ExtendWith(RealServers.class)
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardIT {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  static final String KEYSPACE = "amber_dash_it";
  static final String[] TYPES = {"charger", "meter", "pump"};
  static final int PER_TYPE = 8;
  static final String CHART_DEVICE = "dash-charger-01";
  static final List<String> ABNORMAL = List.of("dash-charger-03", "dash-meter-05", "dash-pump-07");

  /** Three hours every 30 s. */
  static final int SEEDED_PER_CHART_DEVICE = 360;

  /** The week's day without events: the overview draws no bar for it. */
  static final int EMPTY_DAY_AGO = 3;

  static final String AMBER_PIXELS =
      "const u = Amber.charts.get(arguments[0]); const i = arguments[1];"
          + " const x = Math.round(u.valToPos(u.data[0][i], 'x', true));"
          + " const top = Math.round(u.bbox.top), h = Math.round(u.bbox.height);"
          + " const px = u.ctx.getImageData(x - 2, top, 5, h).data; let n = 0;"
          + " for (let k = 0; k < px.length; k += 4) {"
          + "   if (px[k] > 200 && px[k + 1] > 125 && px[k + 1] < 160 && px[k + 2] < 40) n++; }"
          + " return n;";

  static TestService s;
  static WebDriver browser;
  static WebDriverWait wait;
  static boolean keyEntered;
  static long now;
  static int chartEventsLastHour;
  static int chartEventsBefore;

  @BeforeAll
  static void startServiceAndBrowser() {
    boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
    // CI installs chromium (see .ci/run), so there the test always runs; elsewhere it says what is
    // missing
    if (!present && System.getenv("CI") != null) {
      throw new IllegalStateException("CI must provide " + CHROMIUM + " and " + CHROMEDRIVER);
    }
    Assumptions.assumeTrue(
        present, "install Debian's chromium and chromium-driver to run the dashboard test");
    TestService.dropKeyspace(KEYSPACE);
    s =
        TestService.start(
            Map.of(
                "cassandra.keyspace", KEYSPACE,
                "ingest.mode", "direct",
                "kafka.consumer.enabled", "false",
                // closed hours are rolled up within about 15 s
                "writer.request-timeout", "10s",
                "rollup.mark-bucket", "1s",
                "rollup.late-window", "1s",
                "rollup.mark-safety", "10s",
                "rollup.scan-interval", "500ms"));
    seedFleet();
    // the console log, where Chromium reports Content-Security-Policy violations
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    ChromeOptions options =
        new ChromeOptions()
            .setBinary(CHROMIUM.toFile())
            .addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-dev-shm-usage",
                "--disable-gpu",
                "--window-size=1400,1000",
                "--hide-scrollbars");
    options.setCapability("goog:loggingPrefs", logs);
    ChromeDriverService service =
        new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).build();
    browser = new ChromeDriver(service, options);
    // the device page redraws its counters and rollups every 10 s
    wait = new WebDriverWait(browser, Duration.ofSeconds(60));
    wait.ignoring(StaleElementReferenceException.class);
  }

  /** Every page the test showed kept to its policy: no violation in the browser's console. */
  @AfterEach
  void noPageBrokeItsContentSecurityPolicy() {
    List<String> violations =
        browser.manage().logs().get(LogType.BROWSER).getAll().stream()
            .map(LogEntry::getMessage)
            .filter(m -> m.contains("Content Security Policy"))
            .toList();
    assertThat(violations).as("CSP violations in the browser console").isEmpty();
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.quit();
    }
    if (s != null) {
      s.close();
    }
  }

  /**
   * 24 devices of three types over the last three hours, every 5 minutes, three of them abnormal
   * now; the chart device every 30 s in the last hour.
   */
  static void seedFleet() {
    now = System.currentTimeMillis();
    List<JsonObject> events = new ArrayList<>();
    for (String type : TYPES) {
      for (int i = 1; i <= PER_TYPE; i++) {
        String device = String.format("dash-%s-%02d", type, i);
        boolean chart = device.equals(CHART_DEVICE);
        long step = chart ? 30_000 : 300_000;
        // from the newest back, so every device's last event is a second old: just after midnight
        // UTC today's figures still hold the abnormal devices' newest events
        for (long ts = now - 1000; ts >= now - 3 * 3_600_000L; ts -= step) {
          double phase = (ts - now) / 1_800_000.0 + i;
          boolean abnormal = ABNORMAL.contains(device) && ts > now - 10 * 60_000;
          events.add(
              new JsonObject()
                  .put("deviceId", device)
                  .put("ts", ts)
                  .put("deviceType", type)
                  .put("status", abnormal ? "fault" : "normal")
                  .put("code", abnormal ? (type.equals("pump") ? 503 : 500) : 200)
                  .put(
                      "metrics",
                      new JsonObject()
                          .put("temperature", Math.round((30 + 6 * Math.sin(phase)) * 100) / 100.0)
                          .put(
                              "current",
                              Math.round((4 + 2 * Math.cos(phase * 1.7)) * 100) / 100.0)));
          if (chart && ts > now - 3_600_000L) {
            chartEventsLastHour++;
          }
        }
      }
    }
    // the six days before, but one: a few events per device and day, for the overview's week
    for (int d = 1; d <= 6; d++) {
      if (d == EMPTY_DAY_AGO) {
        continue;
      }
      long dayStart = (now / 86_400_000L - d) * 86_400_000L;
      for (String type : TYPES) {
        for (int i = 1; i <= PER_TYPE; i++) {
          String device = String.format("dash-%s-%02d", type, i);
          // before noon UTC of that day, so never inside the device page's 6-hour range
          for (int k = 0; k < 3 + (d * 7 + i) % 4; k++) {
            if (device.equals(CHART_DEVICE)) {
              chartEventsBefore++;
            }
            events.add(
                new JsonObject()
                    .put("deviceId", device)
                    .put("ts", dayStart + (k * 2 + i % 2) * 3_600_000L + i * 60_000L)
                    .put("deviceType", type)
                    .put("status", "normal")
                    .put("code", 200)
                    .put("metrics", new JsonObject().put("temperature", 30.0).put("current", 4.0)));
          }
        }
      }
    }
    for (int i = 0; i < events.size(); i += 250) {
      post(events.subList(i, Math.min(events.size(), i + 250)));
    }
  }

  static void post(List<JsonObject> events) {
    HttpResponse<String> r = s.postEvents(new JsonArray(new ArrayList<>(events)).encode());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
  }

  static JsonObject event(String device, String type, String status, int code, double temp) {
    return new JsonObject()
        .put("deviceId", device)
        .put("ts", System.currentTimeMillis())
        .put("eventId", UUID.randomUUID().toString())
        .put("deviceType", type)
        .put("status", status)
        .put("code", code)
        .put("metrics", new JsonObject().put("temperature", temp).put("current", 4.2));
  }

  static void open(String hash) {
    browser.get(s.uri("/" + hash).toString());
    assertThat(browser.getTitle()).isEqualTo("Amber Garden");
    if (!keyEntered) {
      // auth is on: the page asks for a key once (auth.js) and keeps it for the tab
      wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("amber-key")))
          .sendKeys(TestKeys.adminText());
      browser.findElement(By.id("amber-key-submit")).click();
      wait.until(ExpectedConditions.invisibilityOfElementLocated(By.id("amber-auth")));
      keyEntered = true;
    }
  }

  static String text(String id) {
    return browser.findElement(By.id(id)).getText();
  }

  static List<WebElement> all(String css) {
    return browser.findElements(By.cssSelector(css));
  }

  static Object js(String script, Object... args) {
    return ((JavascriptExecutor) browser).executeScript(script, args);
  }

  /** Text of an element, shown or not (getText() is empty for hidden ones). */
  static String textContent(String id) {
    return browser.findElement(By.id(id)).getAttribute("textContent");
  }

  /** The chart's plot area, where the cursor and its tooltip live. */
  static WebElement plot(String chartId) {
    return browser.findElement(By.cssSelector("#" + chartId + " .uplot .u-over"));
  }

  /** Moves the mouse to a plot position in CSS pixels from its top left corner. */
  static void hover(String chartId, double x, double y) {
    WebElement over = plot(chartId);
    int dx = (int) Math.round(x - over.getSize().getWidth() / 2.0);
    int dy = (int) Math.round(y - over.getSize().getHeight() / 2.0);
    new Actions(browser).moveToElement(over, dx, dy).perform();
  }

  /** The x range the chart shows, in ms. */
  static double shownSpan(String chartId) {
    return ((Number)
            js("const x = Amber.charts.get(arguments[0]).scales.x; return x.max - x.min;", chartId))
        .doubleValue();
  }

  /** Live-feed WebSockets the service holds open, from its metrics. */
  static int liveClients() {
    return s.get("/metrics")
        .body()
        .lines()
        .filter(l -> l.startsWith("amber_live_clients"))
        .mapToInt(l -> (int) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }

  /** The whole page as a PNG, in target/screenshots and in -Damber.docs.screenshots if set. */
  static void screenshot(String name) throws IOException {
    long height =
        (Long)
            ((JavascriptExecutor) browser)
                .executeScript("return document.documentElement.scrollHeight;");
    // the whole page: a viewport as tall as the document, then back
    ChromeDriver chrome = (ChromeDriver) browser;
    chrome.executeCdpCommand(
        "Emulation.setDeviceMetricsOverride",
        Map.of(
            "width",
            1400,
            "height",
            (int) Math.min(4000, height),
            "deviceScaleFactor",
            1,
            "mobile",
            false));
    byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
    chrome.executeCdpCommand("Emulation.clearDeviceMetricsOverride", Map.of());
    List<Path> dirs = new ArrayList<>(List.of(Path.of("target/screenshots")));
    String docs = System.getProperty("amber.docs.screenshots");
    if (docs != null && !docs.isBlank()) {
      dirs.add(Path.of(docs));
    }
    for (Path dir : dirs) {
      Files.createDirectories(dir);
      Files.write(dir.resolve(name + ".png"), png);
    }
  }

  @Test
  @Order(1)
  void theOverviewShowsRateDevicesAbnormalCodesAndTodaysMix() throws IOException {
    open("#/overview");
    wait.until(ExpectedConditions.textToBe(By.id("ov-devices"), "24"));
    wait.until(ExpectedConditions.textToBe(By.id("ov-abnormal"), "3"));
    assertThat(all("#ov-abnormal-codes li").stream().map(li -> li.getAttribute("data-key")))
        .containsExactlyInAnyOrder("500", "503");
    // today's mix and types come from the counters, applied from the count journal after the
    // acknowledgement: the page shows them at a refresh once the journal bucket is applied
    wait.until(
        d ->
            all("#ov-status-mix div[data-status='fault']").size() == 1
                && all("#ov-status-mix div[data-status='normal']").size() == 1
                && all("#ov-types li").size() == TYPES.length);
    assertThat(all("#ov-types li").stream().map(li -> li.getAttribute("data-key")))
        .containsExactlyInAnyOrder(TYPES);
    // events per second come from two counter samples a refresh apart; new events arrive meanwhile
    post(List.of(event("dash-meter-02", "meter", "normal", 200, 30.1)));
    wait.until(
        ExpectedConditions.textMatches(By.id("ov-eps"), java.util.regex.Pattern.compile("\\d")));
    assertThat(text("ov-today").replace(",", "")).matches("\\d+");
    // the rate's sparkline is a uPlot chart too
    wait.until(d -> !all("#ov-eps-chart .uplot canvas").isEmpty());

    // the week: one bar per day with events, none for the day without. Its counts come from the
    // counters too, read when the overview is shown (and every minute): shown again until every
    // day but the empty one has its count
    wait.until(d -> !all("#ov-days .uplot canvas").isEmpty());
    long[] shownAt = {System.currentTimeMillis()};
    wait.until(
        d -> {
          long missing =
              (Long)
                  js("return Amber.charts.get('ov-days').data[1].filter(v => v == null).length;");
          if (missing != 1 && System.currentTimeMillis() - shownAt[0] > 5000) {
            shownAt[0] = System.currentTimeMillis();
            js("location.hash = '#/fleet'; setTimeout(() => location.hash = '#/overview', 200);");
          }
          return missing == 1;
        });
    String emptyDay =
        java.time.LocalDate.now(java.time.ZoneOffset.UTC).minusDays(EMPTY_DAY_AGO).toString();
    long emptyIndex =
        (Long)
            js(
                "return Amber.charts.get('ov-days').data[0]"
                    + ".findIndex(t => new Date(t).toISOString().startsWith(arguments[0]));",
                emptyDay);
    assertThat(emptyIndex).as("the empty day is on the chart").isBetween(0L, 6L);
    for (long day = 0; day < 7; day++) {
      long pixels = (Long) js(AMBER_PIXELS, "ov-days", day);
      if (day == emptyIndex) {
        assertThat(pixels).as("bar pixels of the empty day").isZero();
      } else {
        assertThat(pixels).as("bar pixels of day %d", day).isPositive();
      }
    }
    // its tooltip says so, where a day with events gives its count
    double emptyX =
        ((Number)
                js(
                    "const u = Amber.charts.get('ov-days');"
                        + " return u.valToPos(u.data[0][arguments[0]], 'x');",
                    emptyIndex))
            .doubleValue();
    hover("ov-days", emptyX, 20);
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.cssSelector("#ov-days .chart-tip"), emptyDay + ": no events"));
    // the picture shows today's tooltip
    double todayX =
        ((Number)
                js("const u = Amber.charts.get('ov-days'); return u.valToPos(u.data[0][6], 'x');"))
            .doubleValue();
    hover("ov-days", todayX, 20);
    wait.until(
        ExpectedConditions.textMatches(
            By.cssSelector("#ov-days .chart-tip"),
            java.util.regex.Pattern.compile("^\\d{4}-\\d{2}-\\d{2}: [\\d,]+ events$")));
    screenshot("overview");
  }

  @Test
  @Order(2)
  void theFleetFiltersPagesAndMarksAbnormalDevices() {
    open("#/fleet?type=charger");
    wait.until(d -> all("#fleet-rows tr").size() == PER_TYPE);
    List<String> ids =
        all("#fleet-rows tr").stream().map(r -> r.getAttribute("data-device")).toList();
    assertThat(ids).isSorted().allMatch(id -> id.startsWith("dash-charger-"));
    assertThat(all("#fleet-rows tr.abnormal").stream().map(r -> r.getAttribute("data-device")))
        .containsExactly("dash-charger-03");
    assertThat(browser.findElement(By.cssSelector("#fleet-rows tr.abnormal .tag")).getText())
        .isEqualTo("ABNORMAL");

    // the form's abnormal filter, over every type
    WebElement form = browser.findElement(By.id("fleet-form"));
    form.findElement(By.name("type")).clear();
    new Select(form.findElement(By.name("abnormal"))).selectByValue("true");
    form.findElement(By.cssSelector("button[type=submit]")).click();
    wait.until(d -> all("#fleet-rows tr").size() == ABNORMAL.size());
    assertThat(all("#fleet-rows tr").stream().map(r -> r.getAttribute("data-device")))
        .containsExactlyElementsOf(ABNORMAL);

    // ten per page over 24 devices: three pages, forwards and back
    open("#/fleet?limit=10");
    wait.until(d -> all("#fleet-rows tr").size() == 10);
    String first = all("#fleet-rows tr").get(0).getAttribute("data-device");
    browser.findElement(By.id("fleet-next")).click();
    wait.until(ExpectedConditions.textToBe(By.id("fleet-page"), "page 2"));
    browser.findElement(By.id("fleet-next")).click();
    wait.until(ExpectedConditions.textToBe(By.id("fleet-page"), "page 3"));
    wait.until(d -> all("#fleet-rows tr").size() == 4);
    assertThat(browser.findElement(By.id("fleet-next")).isEnabled()).isFalse();
    browser.findElement(By.id("fleet-prev")).click();
    browser.findElement(By.id("fleet-prev")).click();
    wait.until(ExpectedConditions.textToBe(By.id("fleet-page"), "page 1"));
    wait.until(d -> first.equals(all("#fleet-rows tr").get(0).getAttribute("data-device")));
  }

  @Test
  @Order(3)
  void theDevicePageShowsStateChartRollupsCountersAndItsOwnLiveFeed() throws IOException {
    open("#/fleet?type=charger");
    wait.until(d -> all("#fleet-rows tr").size() == PER_TYPE);
    browser
        .findElement(By.cssSelector("#fleet-rows tr[data-device='" + CHART_DEVICE + "'] a"))
        .click();
    wait.until(ExpectedConditions.textToBe(By.id("dev-title"), CHART_DEVICE));
    assertThat(text("dev-status")).startsWith("normal");
    assertThat(all("#dev-metrics div[data-metric='temperature']")).hasSize(1);
    wait.until(d -> !all("#dev-metric option[value='temperature']").isEmpty());
    new Select(browser.findElement(By.id("dev-metric"))).selectByValue("temperature");
    // the last hour as the page sees it: the seed's last hour, less what aged out meanwhile,
    // counted by the series API in 1-minute buckets
    wait.until(
        ExpectedConditions.textMatches(
            By.id("dev-chart-note"),
            java.util.regex.Pattern.compile(
                "^\\d+ events of temperature for "
                    + CHART_DEVICE
                    + " .* per 1m \\(\\d+ points\\)")));
    int events = Integer.parseInt(text("dev-chart-note").split(" ")[0]);
    assertThat(events).isBetween(chartEventsLastHour - 3, chartEventsLastHour);
    // the chart's range: six hours in 2-minute buckets, read from the detail rows
    new Select(browser.findElement(By.id("dev-range"))).selectByValue("21600000");
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.id("dev-chart-note"), SEEDED_PER_CHART_DEVICE + " events of temperature"));
    // 360 events 30 s apart over three hours: 90 buckets, or 91 when they straddle a boundary
    assertThat(text("dev-chart-note")).containsPattern("per 2m \\((90|91) points\\)");
    // closed hours are rolled up from the stored events: the last full hour had 120 events
    wait.until(
        d ->
            !all("#dev-rollups tr").isEmpty()
                && all("#dev-rollups tr td:nth-child(2)").get(0).getText().equals("120"));
    // the counters hold every day of the device, once the count journal is applied (off the
    // acknowledgement path: a scan after the rollups at most)
    wait.until(
        ExpectedConditions.textToBe(
            By.id("dev-counter-total"), (SEEDED_PER_CHART_DEVICE + chartEventsBefore) + " events"));
    assertThat(all("#device-images")).hasSize(1);

    // its own live feed: a new event shows in the table, the state and the chart
    wait.until(ExpectedConditions.textToBe(By.id("dev-live-status"), "live"));
    post(List.of(event(CHART_DEVICE, "charger", "fault", 500, 44.4)));
    wait.until(d -> all("#dev-feed tr.abnormal").size() == 1);
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("dev-status"), "fault"));
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.id("dev-chart-note"), (SEEDED_PER_CHART_DEVICE + 1) + " events of temperature"));
    // the range as CSV, through the export API
    browser.findElement(By.id("dev-csv")).click();
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.id("dev-csv-note"),
            (SEEDED_PER_CHART_DEVICE + 1) + " events exported to " + CHART_DEVICE + ".csv"));
    screenshot("device");
    // a whole week in one request: hourly buckets from the rollups, with the days before
    new Select(browser.findElement(By.id("dev-range"))).selectByValue("604800000");
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.id("dev-chart-note"),
            (SEEDED_PER_CHART_DEVICE + chartEventsBefore + 1) + " events of temperature"));
    assertThat(text("dev-chart-note")).contains("per 1h (");
  }

  @Test
  @Order(4)
  void theDeviceChartShowsTheValuesUnderTheCursorAndZoomsByDragging() {
    open("#/device/" + CHART_DEVICE);
    wait.until(d -> !all("#dev-chart .uplot canvas").isEmpty());
    new Select(browser.findElement(By.id("dev-range"))).selectByValue("3600000");
    wait.until(
        ExpectedConditions.textMatches(
            By.id("dev-chart-note"), java.util.regex.Pattern.compile("per 1m \\(\\d+ points\\)")));
    // a point in the middle of the hour: the tooltip gives its time and average
    @SuppressWarnings("unchecked")
    List<Object> point =
        (List<Object>)
            js(
                "const u = Amber.charts.get('dev-chart'); const k = Math.floor(u.data[0].length / 2);"
                    + " return [u.valToPos(u.data[0][k], 'x'), u.valToPos(u.data[2][k], 'y'),"
                    + " Amber.fmt.dateTime(u.data[0][k]), Amber.fmt.decimal(u.data[2][k])];");
    hover(
        "dev-chart", ((Number) point.get(0)).doubleValue(), ((Number) point.get(1)).doubleValue());
    By tip = By.cssSelector("#dev-chart .chart-tip");
    wait.until(ExpectedConditions.visibilityOfElementLocated(tip));
    assertThat(browser.findElement(tip).getText())
        .contains((String) point.get(2))
        .contains("avg " + point.get(3));
    // the legend under the chart follows the cursor too
    assertThat(all("#dev-chart .u-legend .u-value").get(2).getText()).isEqualTo(point.get(3));

    // dragging across the middle half zooms into it; a double-click shows the hour again
    double hour = shownSpan("dev-chart");
    assertThat(hour).isBetween(3_600_000.0, 3_660_000.0);
    WebElement over = plot("dev-chart");
    int quarter = over.getSize().getWidth() / 4;
    new Actions(browser)
        .moveToElement(over, -quarter, 0)
        .clickAndHold()
        .moveByOffset(2 * quarter, 0)
        .release()
        .perform();
    wait.until(d -> shownSpan("dev-chart") < hour * 0.6);
    assertThat(shownSpan("dev-chart")).isGreaterThan(hour * 0.4);
    new Actions(browser).moveToElement(over).doubleClick().perform();
    wait.until(d -> shownSpan("dev-chart") >= hour);
  }

  @Test
  @Order(5)
  void theLiveFeedShowsFilteredEventsAsTheyArrive() {
    open("#/live");
    WebElement form = browser.findElement(By.id("filters"));
    form.findElement(By.name("devices")).sendKeys("dash-pump-02");
    form.findElement(By.cssSelector("button[type=submit]")).click();
    wait.until(ExpectedConditions.textToBe(By.id("status"), "live"));
    post(
        List.of(
            event("dash-pump-01", "pump", "normal", 200, 31.0),
            event("dash-pump-02", "pump", "normal", 200, 31.5),
            event("dash-pump-02", "pump", "alarm", 503, 52.0)));
    wait.until(d -> all("#feed tr").size() == 2);
    assertThat(all("#feed tr").stream().map(r -> r.getAttribute("data-device")))
        .containsOnly("dash-pump-02");
    assertThat(all("#feed tr.abnormal")).hasSize(1);
    // a row leads to its device page
    all("#feed tr").get(0).click();
    wait.until(ExpectedConditions.textToBe(By.id("dev-title"), "dash-pump-02"));
  }

  @Test
  @Order(6)
  void theApiReferenceRendersTheDocumentAndCallsTheApiWithTheConsolesKey() throws IOException {
    open("#/overview"); // the key, once entered, is kept for the tab
    browser.get(s.uri("/docs").toString());
    By operation = By.id("operations-stats-getAbnormalStats");
    wait.until(ExpectedConditions.visibilityOfElementLocated(operation));
    // every operation of the document, each under its tags (ids are operations-<tag>-<id>)
    JsonObject paths = OpenApiSchemas.document().getJsonObject("paths");
    List<String> documented =
        paths.fieldNames().stream()
            .map(paths::getJsonObject)
            .flatMap(p -> p.fieldNames().stream().map(p::getValue))
            .filter(o -> o instanceof JsonObject op && op.containsKey("operationId"))
            .map(o -> ((JsonObject) o).getString("operationId"))
            .toList();
    assertThat(
            all(".opblock").stream()
                .map(b -> b.getAttribute("id"))
                .map(id -> id.substring(id.lastIndexOf('-') + 1))
                .distinct())
        .containsExactlyInAnyOrderElementsOf(documented);
    WebElement op = browser.findElement(operation);
    op.findElement(By.cssSelector(".opblock-summary")).click();
    String opCss = "#operations-stats-getAbnormalStats ";
    wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector(opCss + ".try-out__btn")))
        .click();
    wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector(opCss + ".execute"))).click();
    // answered 200: "Try it out" sent the console's API key
    wait.until(
        d ->
            all(opCss + ".live-responses-table .response-col_status").stream()
                .anyMatch(e -> e.getText().trim().startsWith("200")));
  }

  @Test
  @Order(7)
  void signingOutForgetsTheKeyClosesTheLiveFeedAndAsksForAKey() {
    open("#/live");
    wait.until(ExpectedConditions.textToBe(By.id("status"), "live"));
    wait.until(d -> liveClients() == 1);
    WebElement signOut = browser.findElement(By.id("sign-out"));
    assertThat(signOut.isDisplayed()).isTrue();
    signOut.click();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("amber-key")));
    assertThat(js("return sessionStorage.getItem('amber.apiKey');")).isNull();
    assertThat(browser.findElement(By.tagName("main")).isDisplayed()).isFalse();
    assertThat(textContent("status")).isEqualTo("idle");
    wait.until(d -> liveClients() == 0);
    assertThat(signOut.isDisplayed()).isFalse();

    // a key brings the view back, live again
    browser.findElement(By.id("amber-key")).sendKeys(TestKeys.adminText());
    browser.findElement(By.id("amber-key-submit")).click();
    wait.until(ExpectedConditions.textToBe(By.id("status"), "live"));
    assertThat(signOut.isDisplayed()).isTrue();
  }
}
