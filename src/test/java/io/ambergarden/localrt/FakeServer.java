package io.ambergarden.localrt;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;

/**
 * A stand-in server for the launcher's tests, both sides in one file: as a {@link ServerProcess} it
 * is launched the way Cassandra and Kafka are; its {@link #main} (the child) answers "ok" to each
 * line on a loopback port and, when it stops, writes "server stopping" to the shared event log.
 */
final class FakeServer extends ServerProcess {
  static final String STOPPING = "server stopping";

  FakeServer(LocalRuntimeOptions options, Path dir) {
    super(options, dir);
  }

  /** The child: {@code FakeServer <dir> <event log>}. */
  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    Path events = Path.of(args[1]);
    ServerSocket socket = new ServerSocket(0, 50, Ports.LOOPBACK);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  event(events, STOPPING);
                  try {
                    socket.close();
                  } catch (IOException e) {
                    // stopping anyway
                  }
                }));
    Path tmp = dir.resolve("port.tmp");
    Files.writeString(tmp, Integer.toString(socket.getLocalPort()));
    Files.move(tmp, dir.resolve("port"), StandardCopyOption.ATOMIC_MOVE);
    while (!socket.isClosed()) {
      try (Socket client = socket.accept();
          BufferedReader in =
              new BufferedReader(
                  new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
          PrintWriter out = new PrintWriter(client.getOutputStream(), true)) {
        while (in.readLine() != null) {
          out.println("ok");
        }
      } catch (IOException e) {
        // closed by the shutdown hook, or the client went away
      }
    }
  }

  /** Appends one line; O_APPEND keeps the lines of both processes whole and in order. */
  static void event(Path events, String line) {
    try {
      Files.writeString(
          events,
          line + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  int port() throws IOException {
    return Integer.parseInt(Files.readString(dir().resolve("port")).trim());
  }

  @Override
  protected String name() {
    return "FakeServer";
  }

  @Override
  protected String mainClass() {
    return FakeServer.class.getName();
  }

  @Override
  protected Map<Integer, String> ports() {
    return Map.of();
  }

  @Override
  protected void prepare(String classpath) throws IOException {
    Files.deleteIfExists(dir().resolve("port"));
  }

  @Override
  protected List<String> jvmOptions() {
    return List.of("-Xmx32m", "-XX:TieredStopAtLevel=1");
  }

  @Override
  protected List<String> programArguments() {
    return List.of(dir().toString(), dir().resolveSibling("events.log").toString());
  }

  @Override
  protected MavenClasspath.Spec classpathSpec() {
    throw new UnsupportedOperationException("the fake runs on the test classpath");
  }

  @Override
  protected String classpath() {
    return System.getProperty("java.class.path");
  }

  @Override
  protected void probe() throws IOException {
    port();
  }

  @Override
  protected boolean isFresh() {
    return true;
  }
}
