package io.ambergarden.chaos.net;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The proxies of a run, on one event-loop thread of their own (a proxy only copies bytes; the two
 * cores belong to the servers). Closing the group closes every proxy.
 */
public final class ProxyGroup implements AutoCloseable {
  private final EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final List<LinkProxy> proxies = new ArrayList<>();

  /** A forwarding proxy listening on {@code listen}, to {@code upstream}. */
  public synchronized LinkProxy start(
      String name, InetSocketAddress listen, InetSocketAddress upstream) {
    LinkProxy p = new LinkProxy(name, listen, upstream, loop);
    p.bind();
    proxies.add(p);
    return p;
  }

  public synchronized List<LinkProxy> proxies() {
    return List.copyOf(proxies);
  }

  /** Every proxy back to {@link LinkProxy.Mode#FORWARD} without delay. */
  public synchronized void healAll() {
    for (LinkProxy p : proxies) {
      p.delay(java.time.Duration.ZERO);
      p.mode(LinkProxy.Mode.FORWARD);
    }
  }

  @Override
  public synchronized void close() {
    proxies.forEach(LinkProxy::close);
    proxies.clear();
    loop.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
  }
}
