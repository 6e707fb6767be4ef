package io.ambergarden.localrt;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** Loopback port checks. */
public final class Ports {
  static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

  private Ports() {}

  /**
   * Fails if something already listens on the port. Binding is the honest check: a connect test
   * misses listeners that do not accept, and a bind on 127.0.0.1 also collides with a listener on
   * 0.0.0.0. SO_REUSEADDR is on so TIME_WAIT sockets of a previous run of ours do not count as
   * taken (the servers bind with it too).
   */
  static void requireFree(int port, String what) {
    requireFree(LOOPBACK, port, what);
  }

  /**
   * {@link #requireFree(int, String)} on another loopback address (127.0.0.i of a cluster node).
   */
  static void requireFree(InetAddress address, int port, String what) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(address, port));
    } catch (IOException e) {
      throw new LocalRuntimeException(
          "Port "
              + port
              + " ("
              + what
              + ") on "
              + address.getHostAddress()
              + " is already in use; "
              + "stop whatever listens there or choose another port (see LocalRuntimeOptions): "
              + e.getMessage());
    }
  }

  /** A port nothing listens on now (the kernel's pick), for a server started next. */
  public static int free() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new LocalRuntimeException("no free port: " + e, e);
    }
  }

  /** True if a TCP connection to 127.0.0.1:port is accepted within the timeout. */
  static boolean accepts(int port, int timeoutMillis) {
    return accepts(LOOPBACK, port, timeoutMillis);
  }

  /** True if a TCP connection to address:port is accepted within the timeout. */
  static boolean accepts(InetAddress address, int port, int timeoutMillis) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(address, port), timeoutMillis);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
