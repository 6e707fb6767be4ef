package io.ambergarden.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.ambergarden.localrt.RealServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in a real headless Chromium: it loads, goes live, and shows an event ingested
 * meanwhile.
 */
@ExtendWith(RealServers.class)
@Timeout(180)
class DashboardIT {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

  @Test
  void testPageLoadsAndShowsALiveEventAndTheHistoryChart() {
    boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
    // CI installs chromium (see .ci/run), so there the test always runs; elsewhere it says what is
    // missing
    if (!present && System.getenv("CI") != null) {
      throw new IllegalStateException("CI must provide " + CHROMIUM + " and " + CHROMEDRIVER);
    }
    Assumptions.assumeTrue(
        present, "install Debian's chromium and chromium-driver to run the dashboard test");

    String device = "dash-" + UUID.randomUUID().toString().substring(0, 8);
    try (TestService s =
        TestService.start(Map.of("ingest.mode", "direct", "kafka.consumer.enabled", "false"))) {
      ChromeOptions options =
          new ChromeOptions()
              .setBinary(CHROMIUM.toFile())
              .addArguments(
                  "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu");
      ChromeDriverService service =
          new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).build();
      WebDriver browser = new ChromeDriver(service, options);
      try {
        browser.get(s.uri("/").toString());
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        // auth is on: the page asks for a key once (auth.js), as it does for a person
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("amber-key")))
            .sendKeys(TestKeys.admin());
        browser.findElement(By.id("amber-key-submit")).click();
        assertThat(browser.getTitle()).isEqualTo("Amber Garden");
        wait.until(ExpectedConditions.textToBe(By.id("status"), "live"));

        long now = System.currentTimeMillis();
        assertThat(
                s.postEvents(
                        "[{\"deviceId\":\""
                            + device
                            + "\",\"ts\":"
                            + (now - 1000)
                            + ",\"status\":\"normal\","
                            + "\"metrics\":{\"temperature\":21.5}},{\"deviceId\":\""
                            + device
                            + "\",\"ts\":"
                            + now
                            + ",\"status\":\"fault\",\"code\":503,\"metrics\":{\"temperature\":48.25}}]")
                    .statusCode())
            .isEqualTo(202);
        wait.until(
            ExpectedConditions.presenceOfElementLocated(
                By.cssSelector("#feed tr[data-device='" + device + "']")));
        assertThat(
                browser.findElements(
                    By.cssSelector("#feed tr.abnormal[data-device='" + device + "']")))
            .hasSize(1);

        // clicking the row charts the device's history from the history API
        browser.findElement(By.cssSelector("#feed tr[data-device='" + device + "']")).click();
        wait.until(
            ExpectedConditions.textToBePresentInElementLocated(
                By.id("chart-note"), "2 points of temperature for " + device));
      } finally {
        browser.quit();
      }
    }
  }
}
