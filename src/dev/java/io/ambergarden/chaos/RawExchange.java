package io.ambergarden.chaos;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What a client does with a {@link RawRequest} on a connected socket: cut it, hang up on it, send
 * it slowly, or send it and read the answer's status. Each returns its result in a few words: a
 * status code, {@value #CUT}, "timeout", "closed", "reset"... (the closing is the caller's).
 */
final class RawExchange {
  /** Connections the client cut itself, before any answer. */
  static final String CUT = "cut";

  private static final int SILENT = -2;
  private static final int MAX_STATUS_LINE = 8192;

  private final int readMillis;

  /** {@code read}: the socket's read timeout, which a slow body's listening restores. */
  RawExchange(Duration read) {
    this.readMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, read.toMillis()));
  }

  /** What went wrong, in a few words: before the connection (refused) or on it. */
  static String describe(IOException e, boolean connected) {
    if (!connected) {
      if (e instanceof java.net.BindException) {
        return "no source address";
      }
      return e instanceof SocketTimeoutException ? "connect timeout" : "refused";
    }
    if (e instanceof SocketTimeoutException) {
      return "timeout";
    }
    String m = e.getMessage() == null ? "" : e.getMessage().toLowerCase(Locale.ROOT);
    if (e instanceof SocketException && m.contains("reset")) {
      return "reset";
    }
    if (e instanceof SocketException && (m.contains("broken pipe") || m.contains("closed"))) {
      return "closed";
    }
    return "io error " + e.getClass().getSimpleName();
  }

  static String cut(Socket s, byte[]... parts) throws IOException {
    write(s, parts);
    return CUT; // the socket closes with a FIN
  }

  static String reset(Socket s, byte[]... parts) throws IOException {
    write(s, parts);
    s.setSoLinger(true, 0); // close then sends a RST
    return CUT;
  }

  private static void write(Socket s, byte[]... parts) throws IOException {
    OutputStream out = s.getOutputStream();
    for (byte[] p : parts) {
      out.write(p);
    }
    out.flush();
  }

  String answer(Socket s, RawRequest req) throws IOException {
    write(s, req.head(), req.body());
    return readStatus(s.getInputStream(), -2);
  }

  /**
   * The head, then the body in chunks spread over {@code spread}; between chunks it listens, so an
   * early answer (a 408 past the body timeout) ends the sending. Then the answer.
   */
  String slowly(Socket s, RawRequest req, int pieces, Duration spread) throws IOException {
    List<byte[]> chunks = req.chunks(pieces);
    long pause = Math.max(1, spread.toMillis() / Math.max(1, chunks.size() - 1));
    InputStream in = s.getInputStream();
    write(s, req.head(), chunks.get(0));
    for (int i = 1; i < chunks.size(); i++) {
      int first = listen(s, in, pause);
      if (first != SILENT) {
        return first < 0 ? "closed" : readStatus(in, first);
      }
      try {
        write(s, chunks.get(i));
      } catch (IOException e) {
        return "cut by server, then " + afterCut(s, in);
      }
    }
    return readStatus(in, -2);
  }

  /** The answer a server may have sent before it closed a connection the client still wrote to. */
  private String afterCut(Socket s, InputStream in) {
    try {
      return readStatus(in, -2);
    } catch (IOException e) {
      return describe(e, true);
    }
  }

  /** Waits up to {@code pause} ms for the server: its first byte, -1 if it closed, or SILENT. */
  private int listen(Socket s, InputStream in, long pause) throws IOException {
    s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, pause));
    try {
      return in.read();
    } catch (SocketTimeoutException e) {
      return SILENT;
    } finally {
      s.setSoTimeout(readMillis);
    }
  }

  /**
   * The status code of the answer ({@code first}: its first byte, already read, or -2), "closed"
   * when the server closed without one, "bad status" when it is no HTTP status line.
   */
  static String readStatus(InputStream in, int first) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b = first >= 0 ? first : in.read();
    while (b != -1 && b != '\n' && line.size() < MAX_STATUS_LINE) {
      line.write(b);
      b = in.read();
    }
    if (line.size() == 0 && b == -1) {
      return "closed";
    }
    int status = RawRequest.status(line.toString(StandardCharsets.US_ASCII));
    return status < 0 ? "bad status" : Integer.toString(status);
  }
}
