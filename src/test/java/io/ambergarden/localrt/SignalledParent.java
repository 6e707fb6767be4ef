package io.ambergarden.localrt;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The JVM the launcher's tests signal, shaped like {@link DevRun}: it starts a {@link FakeServer}
 * and, on shutdown, first stops its "service", which still needs the server (one request), then the
 * server. {@code SignalledParent <dir>}; writes {@code <dir>/ready} with the server's pid when up.
 */
final class SignalledParent {
  static final String SERVICE_STOPPED = "service stopped cleanly";
  static final String UNDEPLOY_FAILED = "undeploy failed";
  static final String SERVERS_STOPPED = "servers stopped";

  private SignalledParent() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    Path events = dir.resolve("events.log");
    FakeServer server =
        new FakeServer(LocalRuntimeOptions.defaults().withBaseDir(dir), dir.resolve("server"));
    server.start();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  FakeServer.event(events, stopService(server));
                  server.stop();
                  FakeServer.event(events, SERVERS_STOPPED);
                }));
    Path tmp = dir.resolve("ready.tmp");
    Files.writeString(tmp, Long.toString(server.pid().orElseThrow()));
    Files.move(tmp, dir.resolve("ready"));
    Thread.currentThread().join();
  }

  /** The service's last flush: fails if the server went first. */
  private static String stopService(FakeServer server) {
    try (Socket s = new Socket(Ports.LOOPBACK, server.port());
        PrintWriter out = new PrintWriter(s.getOutputStream(), true);
        BufferedReader in =
            new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))) {
      s.setSoTimeout(10_000);
      out.println("flush");
      String reply = in.readLine();
      return "ok".equals(reply) ? SERVICE_STOPPED : UNDEPLOY_FAILED + ": " + reply;
    } catch (IOException e) {
      return UNDEPLOY_FAILED + ": " + e;
    }
  }
}
