package io.ambergarden.web;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class ProblemsTest {
  private static final String SHARE_TOKEN = "Zq8xV3nR0pLk2mT7cW9yB4aE";

  private final Logger problemsLog = (Logger) LoggerFactory.getLogger(Problems.class);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private Vertx vertx;
  private HttpServer server;

  @BeforeEach
  void startServer() throws Exception {
    logged.start();
    problemsLog.addAppender(logged);
    vertx = Vertx.vertx();
    Router router = Router.router(vertx);
    router
        .get("/api/v1/shares/:shareId")
        .handler(ctx -> ctx.fail(new IllegalStateException("store broke")));
    router.get("/api/v1/devices/:id/events").handler(ctx -> ctx.fail(500));
    router.route().failureHandler(new Problems(1)::handle);
    server =
        vertx
            .createHttpServer()
            .requestHandler(router)
            .listen(0)
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stopServer() throws Exception {
    problemsLog.detachAppender(logged);
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void a5xxOnAShareLinkLogsTheRouteButNeverTheShareToken() throws Exception {
    for (String path :
        List.of(
            "/api/v1/shares/" + SHARE_TOKEN,
            "/api/v1//shares/" + SHARE_TOKEN,
            "/api/v1/x/../shares/" + SHARE_TOKEN,
            "/api/v1/%73hares/" + SHARE_TOKEN)) {
      assertThat(get(path)).as(path).isEqualTo(500);
    }

    assertThat(logged.list).hasSize(4);
    for (ILoggingEvent event : logged.list) {
      assertThat(event.getFormattedMessage())
          .contains("/api/v1/shares/{redacted}")
          .doesNotContain(SHARE_TOKEN);
    }
  }

  @Test
  void a5xxOnAnOrdinaryRouteStillLogsItsPath() throws Exception {
    assertThat(get("/api/v1/devices/pump-7/events")).isEqualTo(500);

    assertThat(logged.list).hasSize(1);
    assertThat(logged.list.get(0).getFormattedMessage())
        .contains("GET /api/v1/devices/pump-7/events");
  }

  private int get(String path) throws Exception {
    return vertx
        .createHttpClient()
        .request(HttpMethod.GET, server.actualPort(), "localhost", path)
        .compose(req -> req.send())
        .compose(resp -> resp.body().map(body -> resp))
        .map(HttpClientResponse::statusCode)
        .toCompletionStage()
        .toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }
}
