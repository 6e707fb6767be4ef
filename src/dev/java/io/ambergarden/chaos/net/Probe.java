package io.ambergarden.chaos.net;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * A connectivity probe: a TCP connect from a chosen source address (so an address-based cut applies
 * to it as it does to the node bound there), optionally with a request that must get an answer (a
 * proxy that holds connections accepts them, and only an exchange shows it is cut).
 */
public final class Probe {
  /** A CQL OPTIONS request (protocol v4, stream 0): every node answers SUPPORTED. */
  public static final byte[] CQL_OPTIONS = {4, 0, 0, 0, 5, 0, 0, 0, 0};

  /** A Kafka ApiVersions v0 request (correlation id 1, null client id): every broker answers. */
  public static final byte[] KAFKA_API_VERSIONS = {0, 0, 0, 10, 0, 18, 0, 0, 0, 0, 0, 1, -1, -1};

  public enum Outcome {
    /** Connected (a connect probe). */
    CONNECTED,
    /** Connected and the request got at least one byte back (an exchange probe). */
    ANSWERED,
    /** Connected, but no answer within the timeout: a blackhole. */
    SILENT,
    /** Connection refused or reset. */
    REFUSED,
    /** No connection within the timeout: a silent drop. */
    TIMED_OUT,
    /** Anything else (no route, bind failure); see the log of the caller. */
    FAILED;

    /** Whether the link works. */
    public boolean reached() {
      return this == CONNECTED || this == ANSWERED;
    }
  }

  private Probe() {}

  /** Connects from {@code source} to {@code target} and closes at once. */
  public static Outcome connect(InetAddress source, InetSocketAddress target, Duration timeout) {
    return exchange(source, target, null, timeout);
  }

  /**
   * Connects from {@code source}, sends {@code request} and waits for one byte of answer; a null
   * request makes it a plain connect probe. The timeout applies to the connect and to the answer.
   */
  public static Outcome exchange(
      InetAddress source, InetSocketAddress target, byte[] request, Duration timeout) {
    int millis = Math.toIntExact(Math.max(1, timeout.toMillis()));
    try (Socket s = new Socket()) {
      s.setSoLinger(true, 0); // a reset on close: probes leave no TIME_WAIT behind
      s.bind(new InetSocketAddress(source, 0));
      try {
        s.connect(target, millis);
      } catch (SocketTimeoutException e) {
        return Outcome.TIMED_OUT;
      } catch (ConnectException e) {
        return e.getMessage() != null && e.getMessage().contains("timed out")
            ? Outcome.TIMED_OUT
            : Outcome.REFUSED;
      }
      if (request == null) {
        return Outcome.CONNECTED;
      }
      s.setSoTimeout(millis);
      s.getOutputStream().write(request);
      s.getOutputStream().flush();
      InputStream in = s.getInputStream();
      try {
        return in.read() >= 0 ? Outcome.ANSWERED : Outcome.REFUSED;
      } catch (SocketTimeoutException e) {
        return Outcome.SILENT;
      }
    } catch (SocketException e) {
      String m = String.valueOf(e.getMessage());
      return m.contains("reset") || m.contains("refused") || m.contains("Broken pipe")
          ? Outcome.REFUSED
          : Outcome.FAILED;
    } catch (IOException e) {
      return Outcome.FAILED;
    }
  }
}
