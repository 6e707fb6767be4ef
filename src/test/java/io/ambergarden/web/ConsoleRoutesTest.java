package io.ambergarden.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The console's routes on a router of their own: the page, its files, the WebJar files and the API
 * reference page are served, each with the security headers.
 */
@Timeout(60)
class ConsoleRoutesTest {
  static Vertx vertx;
  static HttpServer server;
  static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void serve() throws Exception {
    vertx = Vertx.vertx();
    Router router = Router.router(vertx);
    ConsoleRoutes.mount(router);
    server =
        vertx
            .createHttpServer()
            .requestHandler(router)
            .listen(0, "127.0.0.1")
            .await(10, TimeUnit.SECONDS);
  }

  @AfterAll
  static void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  static HttpResponse<String> get(String path) throws Exception {
    URI uri = URI.create("http://127.0.0.1:" + server.actualPort() + path);
    return HTTP.send(
        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/",
        "/index.html",
        "/app.css",
        "/js/charts.js",
        "/vendor/uplot/uPlot.iife.min.js",
        "/vendor/uplot/uPlot.min.css",
        "/vendor/swagger-ui/swagger-ui-bundle.js",
        "/vendor/swagger-ui/swagger-ui.css",
        "/docs",
        "/docs/"
      })
  void everyFileOfTheConsoleIsServedWithTheSecurityHeaders(String path) throws Exception {
    HttpResponse<String> r = get(path);
    assertThat(r.statusCode()).as(path).isEqualTo(200);
    assertThat(r.body()).as(path).isNotEmpty();
    String csp = r.headers().firstValue(ConsoleHeaders.CSP).orElseThrow();
    String self = "127.0.0.1:" + server.actualPort();
    assertThat(csp.split(";\\s*"))
        .contains(
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data: blob:",
            "connect-src 'self' ws://" + self + " wss://" + self,
            "frame-ancestors 'none'");
    assertThat(csp).doesNotContain("unsafe-inline", "unsafe-eval", "*");
    assertThat(r.headers().firstValue(ConsoleHeaders.REFERRER_POLICY)).hasValue("no-referrer");
    assertThat(r.headers().firstValue(ConsoleHeaders.CONTENT_TYPE_OPTIONS)).hasValue("nosniff");
  }

  @Test
  void filesCarryTheirContentTypes() throws Exception {
    assertThat(get("/").headers().firstValue("content-type").orElseThrow()).startsWith("text/html");
    assertThat(get("/docs").headers().firstValue("content-type").orElseThrow())
        .startsWith("text/html");
    assertThat(get("/vendor/uplot/uPlot.iife.min.js").headers().firstValue("content-type"))
        .hasValue("text/javascript; charset=utf-8");
    assertThat(get("/vendor/swagger-ui/swagger-ui.css").headers().firstValue("content-type"))
        .hasValue("text/css; charset=utf-8");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/vendor/uplot/package.json",
        "/vendor/uplot/../../maven/org.webjars.npm/uplot/pom.xml",
        "/vendor/swagger-ui/index.html",
        "/no-such-file.js"
      })
  void onlyTheListedWebJarFilesAreServed(String path) throws Exception {
    assertThat(get(path).statusCode()).as(path).isEqualTo(404);
  }

  @Test
  void theApiReferencePageLoadsSwaggerUiAndTheDocumentFromThisOrigin() throws Exception {
    String page = get("/docs").body();
    assertThat(page)
        .contains(
            "/vendor/swagger-ui/swagger-ui-bundle.js",
            "/vendor/swagger-ui/swagger-ui.css",
            "/js/docs.js")
        .doesNotContain("<script>", "style=", "http://", "https://");
  }

  @Test
  void aHostThatCouldBreakThePolicyIsNotCopiedIntoIt() {
    assertThat(ConsoleHeaders.policy("evil.example; script-src *"))
        .contains("connect-src 'self';")
        .doesNotContain("evil", "script-src *");
    assertThat(ConsoleHeaders.policy(null)).contains("connect-src 'self';");
    assertThat(ConsoleHeaders.policy("[::1]:8080")).contains("ws://[::1]:8080 wss://[::1]:8080");
  }
}
