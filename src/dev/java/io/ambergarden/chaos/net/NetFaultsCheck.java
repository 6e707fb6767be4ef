package io.ambergarden.chaos.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Shows on real sockets, in the run's own namespace, that each partition shape cuts what it should
 * and nothing else: listeners on 127.0.0.1-3 stand in for three nodes; each shape is cut with DROP
 * and with RESET on one port, probed on that port and on another, and healed. Exits 0 when every
 * probe matched. Needs root; run it as
 *
 * <pre>
 * flock /work/it.lock src/dev/chaos-in-netns.sh java -cp target/dev-classes:$CP \
 *     io.ambergarden.chaos.net.NetFaultsCheck
 * </pre>
 */
public final class NetFaultsCheck {
  static final int NODE_PORT = 17000;
  static final int OTHER_PORT = 17001;
  static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);
  static final List<Integer> NODES = List.of(1, 2, 3);

  /** "listener peer" pairs the node-port listeners accepted: a handful of loopback addresses. */
  static final java.util.Set<String> SEEN = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private NetFaultsCheck() {}

  public static void main(String[] args) throws IOException {
    List<ServerSocket> listeners = new ArrayList<>();
    boolean ok = true;
    try (Firewall firewall = Firewall.fromEnvironment()) {
      for (int n : NODES) {
        listeners.add(listen(address(n), NODE_PORT));
        listeners.add(listen(address(n), OTHER_PORT));
      }
      PartitionShape healed = PartitionShape.none(NODES);
      ok &= check("before any cut", probes(healed, NODE_PORT));
      List<PartitionShape> shapes =
          List.of(
              PartitionShape.isolate(1, NODES),
              PartitionShape.isolate(3, NODES),
              PartitionShape.majorityMinority(List.of(2, 1, 3)),
              PartitionShape.bridge(List.of(1, 2, 3)));
      for (CutEffect effect : CutEffect.values()) {
        for (PartitionShape shape : shapes) {
          firewall.cut(Cut.of(shape, NetFaultsCheck::address, OptionalInt.of(NODE_PORT)), effect);
          List<ProbeMatrix.Expectation> expected = probes(shape, NODE_PORT);
          // the cut is of one port: the same addresses still talk on another
          expected.addAll(probes(healed, OTHER_PORT));
          ok &=
              check(
                  shape + ", " + effect + ", " + firewall.activeRules().size() + " rules",
                  expected);
          ok &=
              cutLinkAnswers(
                  shape,
                  effect == CutEffect.DROP ? Probe.Outcome.TIMED_OUT : Probe.Outcome.REFUSED);
          firewall.healAll();
          ok &= check("healed", probes(healed, NODE_PORT));
        }
      }
      // an address-only cut: every port between the two addresses, and nothing else
      firewall.cut(List.of(Cut.between(address(1), address(2))), CutEffect.DROP);
      PartitionShape oneTwo =
          PartitionShape.split("1 | 2 (3 untouched)", java.util.Set.of(1), List.of(1, 2));
      List<ProbeMatrix.Expectation> expected = probes(oneTwo, NODE_PORT);
      expected.addAll(probes(oneTwo, OTHER_PORT));
      expected.addAll(probes(PartitionShape.none(List.of(2, 3)), NODE_PORT));
      expected.addAll(probes(PartitionShape.none(List.of(1, 3)), OTHER_PORT));
      ok &= check("address-only cut " + firewall.activeRules(), expected);
      firewall.healAll();
      ok &= firewall.activeRules().isEmpty();
      ok &= checkSourceAddresses(firewall);
    } finally {
      for (ServerSocket s : listeners) {
        s.close();
      }
    }
    System.out.println(ok ? "NET FAULTS CHECK PASSED" : "NET FAULTS CHECK FAILED");
    System.exit(ok ? 0 : 1);
  }

  /**
   * Processes that bind no source address (as Cassandra, Kafka and the driver do), each in a group
   * of its own: a listener must see each from its assigned address, and a cut between two of those
   * addresses must stop exactly that pair of processes.
   */
  private static boolean checkSourceAddresses(Firewall firewall) {
    for (int n : NODES) {
      firewall.assign(SourceAddress.of(0, n, address(n)));
    }
    SEEN.clear();
    boolean ok =
        check(
            "unbound processes, each with a source address",
            processProbes(PartitionShape.none(NODES)));
    for (int n : NODES) {
      List<String> expected = NODES.stream().filter(m -> m != n).map(m -> "127.0.0." + m).toList();
      List<String> seen =
          SEEN.stream()
              .filter(s -> s.startsWith("127.0.0." + n + " "))
              .map(s -> s.substring(s.indexOf(' ') + 1))
              .sorted()
              .toList();
      System.out.println("  127.0.0." + n + ":" + NODE_PORT + " saw connections from " + seen);
      ok &= seen.equals(expected);
    }
    PartitionShape bridge = PartitionShape.bridge(NODES);
    firewall.cut(
        Cut.of(bridge, NetFaultsCheck::address, OptionalInt.of(NODE_PORT)), CutEffect.DROP);
    ok &= check("unbound processes, " + bridge, processProbes(bridge));
    firewall.healAll();
    System.out.println("source rules: " + firewall.sourceRules());
    return ok;
  }

  /** Each probe a process in node a's group, connecting to node b with bash's /dev/tcp. */
  private static List<ProbeMatrix.Expectation> processProbes(PartitionShape shape) {
    List<ProbeMatrix.Expectation> list = new ArrayList<>();
    for (int a : shape.nodes()) {
      for (int b : shape.nodes()) {
        if (a != b) {
          SourceAddress source = SourceAddress.of(0, a, address(a));
          List<String> cmd = new ArrayList<>(source.launchPrefix());
          cmd.addAll(
              List.of(
                  "timeout", "2", "bash", "-c", "exec 3<>/dev/tcp/127.0.0." + b + "/" + NODE_PORT));
          list.add(
              new ProbeMatrix.Expectation(
                  "group " + source.gid() + " -> node " + b + ":" + NODE_PORT,
                  shape.reachable(a, b),
                  () -> runProbe(cmd)));
        }
      }
    }
    return list;
  }

  private static Probe.Outcome runProbe(List<String> cmd) {
    try {
      Process p =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return Probe.Outcome.FAILED;
      }
      return switch (p.exitValue()) {
        case 0 -> Probe.Outcome.CONNECTED;
        case 124 -> Probe.Outcome.TIMED_OUT; // timeout(1) ended it
        default -> Probe.Outcome.REFUSED;
      };
    } catch (IOException e) {
      return Probe.Outcome.FAILED;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Probe.Outcome.FAILED;
    }
  }

  private static List<ProbeMatrix.Expectation> probes(PartitionShape shape, int port) {
    return new ArrayList<>(
        ProbeMatrix.forShape(shape, NetFaultsCheck::address, port, PROBE_TIMEOUT));
  }

  private static boolean cutLinkAnswers(PartitionShape shape, Probe.Outcome expected) {
    NodePair p = shape.cutPairs().get(0);
    Probe.Outcome seen =
        Probe.connect(
            address(p.low()), new InetSocketAddress(address(p.high()), NODE_PORT), PROBE_TIMEOUT);
    System.out.println("  cut link " + p + ": " + seen + " (expected " + expected + ")");
    return seen == expected;
  }

  private static boolean check(String what, List<ProbeMatrix.Expectation> expected) {
    ProbeMatrix.Report report = ProbeMatrix.check(expected);
    System.out.println("== " + what + (report.ok() ? ": as expected" : ": MISMATCH"));
    System.out.println(report.toString().indent(2).stripTrailing());
    return report.ok();
  }

  static InetAddress address(int node) {
    try {
      return InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) node});
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static ServerSocket listen(InetAddress address, int port) throws IOException {
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(new InetSocketAddress(address, port), 256);
    Thread t =
        new Thread(
            () -> {
              while (!s.isClosed()) {
                try (Socket c = s.accept()) {
                  if (port == NODE_PORT && SEEN.size() < 64) {
                    SEEN.add(address.getHostAddress() + " " + c.getInetAddress().getHostAddress());
                  }
                } catch (IOException e) {
                  // closed
                }
              }
            },
            "listen-" + address.getHostAddress() + ":" + port);
    t.setDaemon(true);
    t.start();
    return s;
  }
}
