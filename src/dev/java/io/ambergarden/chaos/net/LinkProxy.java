package io.ambergarden.chaos.net;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP proxy for one link (e.g. the service instances to one Cassandra node), for the links whose
 * two ends an address rule cannot tell apart. It forwards, holds (a silent partition: connects
 * succeed, nothing arrives, clients time out), or refuses and resets (a noisy one), with an added
 * one-way delay in each direction. Buffers are bounded per connection and direction; connections
 * are bounded per proxy. Create proxies with {@link ProxyGroup}.
 */
public final class LinkProxy implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LinkProxy.class);

  /** New connections past this many are closed at once. */
  public static final int MAX_CONNECTIONS = 256;

  public enum Mode {
    /** Pass everything through (after the delay, if one is set). */
    FORWARD,
    /**
     * Accept and hold: nothing is read or forwarded, held bytes stay queued, and the link resumes
     * intact in {@link #FORWARD}, as TCP does after a healed partition.
     */
    BLACKHOLE,
    /** Reset every connection and stop listening, so new connects are refused. */
    RESET
  }

  private final String name;
  private volatile InetSocketAddress listen;
  private final InetSocketAddress upstream;
  private final EventLoopGroup group;
  private final Set<ProxiedConnection> connections = ConcurrentHashMap.newKeySet();
  private volatile Mode mode = Mode.FORWARD;
  private volatile long delayNanos;
  private Channel server;
  private boolean closed;

  LinkProxy(
      String name, InetSocketAddress listen, InetSocketAddress upstream, EventLoopGroup group) {
    this.name = name;
    this.listen = listen;
    this.upstream = upstream;
    this.group = group;
  }

  synchronized void bind() {
    ChannelFuture f =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.AUTO_READ, false)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    accepted(ch);
                  }
                })
            .bind(listen)
            .awaitUninterruptibly();
    if (!f.isSuccess()) {
      throw new IllegalStateException(
          "proxy " + name + " cannot listen on " + listen + ": " + f.cause(), f.cause());
    }
    server = f.channel();
    listen = (InetSocketAddress) server.localAddress(); // port 0 becomes the real one, kept
  }

  private void accepted(SocketChannel client) {
    if (mode == Mode.RESET || connections.size() >= MAX_CONNECTIONS) {
      ProxiedConnection.reset(client);
      return;
    }
    ProxiedConnection c = new ProxiedConnection(this, client);
    connections.add(c);
    client.closeFuture().addListener(f -> connections.remove(c));
    client.pipeline().addLast(c.fromClient());
    if (mode == Mode.FORWARD) {
      c.connectUpstream();
    }
  }

  /** Opens the upstream side of {@code c}, on the client's event loop. */
  void connect(ProxiedConnection c, Channel client) {
    new Bootstrap()
        .group(client.eventLoop())
        .channel(NioSocketChannel.class)
        .option(ChannelOption.AUTO_READ, false)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
        .handler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                ch.pipeline().addLast(c.fromUpstream());
              }
            })
        .connect(upstream)
        .addListener(
            (ChannelFuture f) -> {
              if (f.isSuccess()) {
                c.upstreamConnected(f.channel());
              } else {
                ProxiedConnection.reset(client); // as a refused connect would
              }
            });
  }

  public String name() {
    return name;
  }

  /** Where clients connect. */
  public InetSocketAddress address() {
    return listen;
  }

  public InetSocketAddress upstream() {
    return upstream;
  }

  public Mode mode() {
    return mode;
  }

  /** Bytes read but not yet written on, over all connections and both directions. */
  public long bufferedBytes() {
    return connections.stream().mapToLong(ProxiedConnection::bufferedBytes).sum();
  }

  /** Open client connections. */
  public int connections() {
    return connections.size();
  }

  public synchronized void mode(Mode next) {
    if (closed) {
      throw new IllegalStateException("proxy " + name + " closed");
    }
    Mode previous = mode;
    if (previous == next) {
      return;
    }
    mode = next;
    if (next == Mode.RESET) {
      server.close().awaitUninterruptibly();
    } else if (previous == Mode.RESET) {
      bind();
    }
    for (ProxiedConnection c : List.copyOf(connections)) {
      c.modeChanged(next);
    }
    LOG.info("proxy {} ({} -> {}): {} -> {}", name, listen, upstream, previous, next);
  }

  /** One-way delay added to every chunk in both directions; zero for none. */
  public void delay(Duration oneWay) {
    if (oneWay.isNegative()) {
      throw new IllegalArgumentException("negative delay " + oneWay);
    }
    delayNanos = oneWay.toNanos();
  }

  public Duration delay() {
    return Duration.ofNanos(delayNanos);
  }

  Mode currentMode() {
    return mode;
  }

  long delayNanos() {
    return delayNanos;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (server != null) {
      server.close().awaitUninterruptibly();
    }
    for (ProxiedConnection c : List.copyOf(connections)) {
      c.modeChanged(Mode.RESET);
    }
  }

  @Override
  public String toString() {
    return name + " " + listen + " -> " + upstream + " " + mode;
  }

  /** Logs and drops: a proxy's connection failing is the fault being injected, not a bug. */
  static void quietly(ChannelHandlerContext ctx, Throwable cause) {
    LOG.debug("proxied connection {} failed: {}", ctx.channel(), cause.toString());
    ProxiedConnection.reset(ctx.channel());
  }

  abstract static class Inbound extends ChannelInboundHandlerAdapter {
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      quietly(ctx, cause);
    }
  }
}
