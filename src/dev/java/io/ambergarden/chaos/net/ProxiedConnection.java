package io.ambergarden.chaos.net;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One client connection of a {@link LinkProxy} and its upstream connection. Everything here runs on
 * the client channel's event loop. Reads are manual (auto-read off): a side is read only while the
 * proxy forwards and fewer than {@link #HIGH_WATER} bytes of that direction are queued or being
 * written, so a slow or held peer costs at most that much memory per direction.
 */
final class ProxiedConnection {
  /** Bytes per direction, queued or in flight, past which the source is not read. */
  static final int HIGH_WATER = 1 << 20;

  private final LinkProxy proxy;
  private final Channel client;
  private Channel upstream;
  private boolean connecting;
  private final Pipe toUpstream = new Pipe(true);
  private final Pipe toClient = new Pipe(false);

  ProxiedConnection(LinkProxy proxy, Channel client) {
    this.proxy = proxy;
    this.client = client;
  }

  static void reset(Channel ch) {
    if (ch != null && ch.isOpen()) {
      try {
        ch.config().setOption(ChannelOption.SO_LINGER, 0); // RST, as a refused or cut peer
      } catch (RuntimeException e) {
        // already closing: a plain close does
      }
      ch.close();
    }
  }

  ChannelHandler fromClient() {
    return new LinkProxy.Inbound() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        toUpstream.offer((ByteBuf) msg);
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        toUpstream.sourceClosed();
        toClient.discard();
        if (!forwarding()) {
          reset(upstream); // nobody would be left to close it once the client is gone
        }
      }
    };
  }

  ChannelHandler fromUpstream() {
    return new LinkProxy.Inbound() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        toClient.offer((ByteBuf) msg);
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        toClient.sourceClosed();
        toUpstream.discard();
      }
    };
  }

  /** From any thread: asks the event loop. */
  long bufferedBytes() {
    try {
      return client.eventLoop().submit(() -> toUpstream.bytes + toClient.bytes).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    } catch (java.util.concurrent.ExecutionException
        | java.util.concurrent.RejectedExecutionException e) {
      return 0; // the loop is gone: nothing buffered any more
    }
  }

  /** On the event loop: opens the upstream side once. */
  void connectUpstream() {
    if (!connecting && client.isActive()) {
      connecting = true;
      proxy.connect(this, client);
    }
  }

  void upstreamConnected(Channel ch) {
    upstream = ch;
    if (!client.isActive()) {
      reset(ch);
      return;
    }
    resume();
  }

  /** From any thread. */
  void modeChanged(LinkProxy.Mode mode) {
    client
        .eventLoop()
        .execute(
            () -> {
              switch (mode) {
                case FORWARD -> {
                  if (upstream == null) {
                    connectUpstream();
                  } else {
                    resume();
                  }
                }
                case BLACKHOLE -> {
                  // reads and writes stop by themselves: both check the mode
                }
                case RESET -> {
                  reset(client);
                  reset(upstream);
                  toUpstream.discard();
                  toClient.discard();
                }
              }
            });
  }

  private void resume() {
    toUpstream.pump();
    toClient.pump();
  }

  private boolean forwarding() {
    return proxy.currentMode() == LinkProxy.Mode.FORWARD;
  }

  private record Chunk(ByteBuf bytes, long dueNanos) {}

  /** One direction: what was read from its source, waiting for its delay and its sink. */
  private final class Pipe {
    private final boolean upstreamBound;
    private final ArrayDeque<Chunk> queue = new ArrayDeque<>();
    private long bytes; // queued plus being written
    private long lastDue;
    private boolean sourceClosed;
    private boolean timerSet;

    Pipe(boolean upstreamBound) {
      this.upstreamBound = upstreamBound;
    }

    private Channel source() {
      return upstreamBound ? client : upstream;
    }

    private Channel sink() {
      return upstreamBound ? upstream : client;
    }

    void offer(ByteBuf chunk) {
      // never earlier than the chunk before it, even if the delay was just lowered
      long due = Math.max(System.nanoTime() + proxy.delayNanos(), lastDue);
      lastDue = due;
      bytes += chunk.readableBytes();
      queue.add(new Chunk(chunk, due));
      pump();
    }

    void sourceClosed() {
      sourceClosed = true;
      pump();
    }

    void pump() {
      Channel sink = sink();
      while (!queue.isEmpty() && forwarding() && sink != null) {
        Chunk head = queue.peek();
        long wait = head.dueNanos() - System.nanoTime();
        if (wait > 0) {
          if (!timerSet) {
            timerSet = true;
            client
                .eventLoop()
                .schedule(
                    () -> {
                      timerSet = false;
                      pump();
                    },
                    wait,
                    TimeUnit.NANOSECONDS);
          }
          return;
        }
        queue.poll();
        int n = head.bytes().readableBytes();
        sink.writeAndFlush(head.bytes())
            .addListener(
                f -> {
                  bytes -= n;
                  if (f.isSuccess()) {
                    readMore();
                  } else {
                    reset(client);
                    reset(upstream);
                  }
                });
      }
      if (queue.isEmpty() && sourceClosed && sink != null && forwarding()) {
        sink.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
      }
      readMore();
    }

    private void readMore() {
      Channel source = source();
      if (forwarding()
          && !sourceClosed
          && source != null
          && source.isActive()
          && sink() != null
          && bytes < HIGH_WATER) {
        source.read();
      }
    }

    void discard() {
      Chunk c;
      while ((c = queue.poll()) != null) {
        bytes -= c.bytes().readableBytes();
        c.bytes().release();
      }
    }
  }
}
