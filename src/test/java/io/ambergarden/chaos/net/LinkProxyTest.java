package io.ambergarden.chaos.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Real sockets on loopback, ephemeral ports: no root, no fixed port. */
@Timeout(60)
class LinkProxyTest {
  static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
  static final Duration SHORT = Duration.ofMillis(300);

  ServerSocket upstream;
  final AtomicBoolean echo = new AtomicBoolean(true);
  final CountDownLatch released = new CountDownLatch(1);
  ProxyGroup group;
  LinkProxy proxy;

  @BeforeEach
  void start() throws IOException {
    upstream = new ServerSocket(0, 50, LOOPBACK);
    Thread t = new Thread(this::serve, "echo");
    t.setDaemon(true);
    t.start();
    group = new ProxyGroup();
    proxy =
        group.start(
            "test",
            new InetSocketAddress(LOOPBACK, 0),
            new InetSocketAddress(LOOPBACK, upstream.getLocalPort()));
  }

  @AfterEach
  void stop() throws IOException {
    released.countDown();
    group.close();
    upstream.close();
  }

  /** Echoes every byte, or (echo off) accepts and never reads: a stalled server. */
  private void serve() {
    while (!upstream.isClosed()) {
      try {
        Socket s = upstream.accept();
        Thread t =
            new Thread(
                () -> {
                  try (s) {
                    if (!echo.get()) {
                      s.getInputStream().readNBytes(0);
                      // holds the connection unread until the test ends
                      released.await();
                    }
                    s.getInputStream().transferTo(s.getOutputStream());
                  } catch (IOException | InterruptedException e) {
                    // the test closed it
                  }
                });
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  Socket client() throws IOException {
    Socket s = new Socket();
    s.connect(proxy.address(), 5000);
    s.setSoTimeout(5000); // generous: the machine may be busy; the blackhole test shortens it
    return s;
  }

  static String roundTrip(Socket s, String text) throws IOException {
    s.getOutputStream().write(text.getBytes());
    return new String(s.getInputStream().readNBytes(text.length()));
  }

  @Test
  void itForwardsBothWays() throws IOException {
    try (Socket s = client()) {
      assertThat(roundTrip(s, "hello")).isEqualTo("hello");
    }
    assertThat(Probe.exchange(LOOPBACK, proxy.address(), new byte[] {1}, Duration.ofSeconds(5)))
        .isEqualTo(Probe.Outcome.ANSWERED);
  }

  @Test
  void aBlackholeHoldsAnOpenConnectionAndHealingDeliversWhatWasHeld() throws IOException {
    try (Socket s = client()) {
      assertThat(roundTrip(s, "a")).isEqualTo("a");
      proxy.mode(LinkProxy.Mode.BLACKHOLE);
      s.getOutputStream().write("held".getBytes());
      InputStream in = s.getInputStream();
      s.setSoTimeout((int) SHORT.toMillis());
      assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);
      assertThat(Probe.exchange(LOOPBACK, proxy.address(), new byte[] {1}, SHORT))
          .as("a new connection is accepted and then hears nothing")
          .isEqualTo(Probe.Outcome.SILENT);
      proxy.mode(LinkProxy.Mode.FORWARD);
      s.setSoTimeout(5000);
      assertThat(new String(in.readNBytes(4))).isEqualTo("held");
    }
  }

  @Test
  void aResetClosesConnectionsAndRefusesNewOnesUntilHealed() throws IOException {
    try (Socket s = client()) {
      assertThat(roundTrip(s, "a")).isEqualTo("a");
      proxy.mode(LinkProxy.Mode.RESET);
      assertThatThrownBy(
              () -> {
                s.getOutputStream().write(1);
                if (s.getInputStream().read() < 0) {
                  throw new IOException("closed");
                }
              })
          .isInstanceOf(IOException.class);
    }
    assertThat(proxy.connections()).isZero();
    assertThat(Probe.connect(LOOPBACK, proxy.address(), SHORT)).isEqualTo(Probe.Outcome.REFUSED);
    proxy.mode(LinkProxy.Mode.FORWARD);
    assertThat(Probe.exchange(LOOPBACK, proxy.address(), new byte[] {1}, Duration.ofSeconds(5)))
        .isEqualTo(Probe.Outcome.ANSWERED);
  }

  @Test
  void aDelayIsAddedInEachDirection() throws IOException {
    proxy.delay(Duration.ofMillis(150));
    try (Socket s = client()) {
      long t0 = System.nanoTime();
      assertThat(roundTrip(s, "slow")).isEqualTo("slow");
      assertThat(Duration.ofNanos(System.nanoTime() - t0))
          .isGreaterThanOrEqualTo(Duration.ofMillis(300));
      proxy.delay(Duration.ZERO);
      assertThat(roundTrip(s, "fast")).isEqualTo("fast");
    }
  }

  @Test
  void aServerThatStopsReadingCostsTheProxyABoundedBuffer() throws IOException {
    echo.set(false);
    try (SocketChannel ch = SocketChannel.open(proxy.address())) {
      ch.configureBlocking(false);
      ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
      long written = 0;
      long lastProgress = System.nanoTime();
      // write until the proxy and the kernel buffers push back for a while
      while (System.nanoTime() - lastProgress < Duration.ofMillis(500).toNanos()
          && written < 256L << 20) {
        chunk.clear();
        int n = ch.write(chunk);
        if (n > 0) {
          written += n;
          lastProgress = System.nanoTime();
        }
      }
      assertThat(written).as("the client was pushed back").isLessThan(256L << 20);
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () ->
                  assertThat(proxy.bufferedBytes())
                      .isPositive()
                      .isLessThanOrEqualTo(ProxiedConnection.HIGH_WATER + 64 * 1024));
    }
  }

  @Test
  void connectionsPastTheLimitAreClosedAtOnce() throws IOException {
    java.util.List<Socket> open = new java.util.ArrayList<>();
    try {
      for (int i = 0; i < LinkProxy.MAX_CONNECTIONS; i++) {
        open.add(client());
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> proxy.connections() == LinkProxy.MAX_CONNECTIONS);
      // reset at once: while connecting, or at the first read
      assertThatThrownBy(
              () -> {
                try (Socket extra = client()) {
                  if (extra.getInputStream().read() < 0) {
                    throw new IOException("closed");
                  }
                }
              })
          .isInstanceOf(IOException.class);
      assertThat(proxy.connections()).isEqualTo(LinkProxy.MAX_CONNECTIONS);
    } finally {
      for (Socket s : open) {
        s.close();
      }
    }
  }
}
