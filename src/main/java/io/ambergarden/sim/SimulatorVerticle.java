package io.ambergarden.sim;

import io.ambergarden.config.AmberConfig;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Built-in device simulator (simulator.enabled): simulated devices post events through the real
 * ingest path, POST /api/v1/events of this instance, ten times a second. At most one request is in
 * flight, so a slow service slows the simulator instead of queueing work.
 */
public final class SimulatorVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(SimulatorVerticle.class);
  private static final String[] TYPES = {"charger", "meter", "pump", "valve", "sensor"};

  private final AmberConfig config;
  private final int port;
  private final String apiKey;
  private final SplittableRandom random = new SplittableRandom();
  private double[] temperature;
  private HttpClient http;
  private long timer = -1;
  private boolean busy;
  private long sequence;

  /** {@code apiKey} is a credential with events:write, sent as a bearer token. */
  public SimulatorVerticle(AmberConfig config, int port, String apiKey) {
    this.config = config;
    this.port = port;
    this.apiKey = apiKey;
  }

  @Override
  public Future<?> start() {
    int devices = config.simulator().devices();
    temperature = new double[devices];
    for (int i = 0; i < devices; i++) {
      temperature[i] = 20 + random.nextDouble() * 15;
    }
    // its own port on loopback: with TLS on, the certificate names the public host, not 127.0.0.1
    boolean tls = config.access().tls().enabled();
    http =
        vertx.createHttpClient(
            new HttpClientOptions()
                .setDefaultHost("127.0.0.1")
                .setDefaultPort(port)
                .setSsl(tls)
                .setTrustAll(tls)
                .setVerifyHost(false));
    timer = vertx.setPeriodic(100, id -> tick());
    LOG.info(
        "simulator: {} devices, {} events/s through POST /api/v1/events",
        devices,
        config.simulator().eventsPerSecond());
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    vertx.cancelTimer(timer);
    return http.close();
  }

  public static String deviceId(int i) {
    return String.format("sim-%04d", i);
  }

  private void tick() {
    if (busy) {
      return;
    }
    int n = Math.max(1, config.simulator().eventsPerSecond() / 10);
    long now = System.currentTimeMillis();
    StringBuilder body = new StringBuilder(n * 160).append('[');
    for (int k = 0; k < n; k++) {
      int d = random.nextInt(temperature.length);
      temperature[d] += random.nextDouble() - 0.5;
      boolean fault = random.nextInt(200) == 0;
      body.append(k == 0 ? "" : ",")
          .append("{\"deviceId\":\"")
          .append(deviceId(d))
          .append("\",\"ts\":")
          .append(now)
          .append(",\"eventId\":\"s")
          .append(sequence++)
          .append("\",\"deviceType\":\"")
          .append(TYPES[d % TYPES.length])
          .append("\",\"status\":\"")
          .append(fault ? "fault" : "normal")
          .append("\",\"code\":")
          .append(fault ? 500 : 200)
          .append(",\"metrics\":{\"temperature\":")
          .append(Math.round(temperature[d] * 100) / 100.0)
          .append(",\"current\":")
          .append(Math.round(random.nextDouble() * 1000) / 100.0)
          .append("}}");
    }
    body.append(']');
    busy = true;
    http.request(
            new RequestOptions()
                .setMethod(HttpMethod.POST)
                .setURI("/api/v1/events")
                .putHeader("Content-Type", "application/json")
                .putHeader("Authorization", "Bearer " + apiKey))
        .compose(req -> req.send(Buffer.buffer(body.toString())))
        .onComplete(
            ar -> {
              busy = false;
              if (ar.failed()) {
                LOG.debug("simulator post failed: {}", ar.cause().toString());
              } else {
                ar.result().body();
              }
            });
  }
}
