package io.ambergarden.chaos.net;

import java.util.ArrayList;
import java.util.List;

/** The iptables arguments for cuts and source addresses: pure, so unit-tested without root. */
final class IptablesRules {
  private IptablesRules() {}

  /**
   * The {@code -A chain ...} argument lists that cut {@code cut} both ways. Each rule matches a
   * connection by its conntrack reply tuple (the server's address and port, and the client's
   * address after source NAT), so it matches the connection's packets in both directions, those of
   * connections open before the cut too, and only those: with source NAT, the reply packets reach
   * INPUT with the client's pre-NAT address (127.0.0.1 for every process), which a plain
   * source/destination rule would confuse with every other client's.
   */
  static List<List<String>> cut(String chain, Cut cut, CutEffect effect) {
    String a = cut.a().getHostAddress();
    String b = cut.b().getHostAddress();
    List<List<String>> rules = new ArrayList<>();
    // connections opened by a to b, then by b to a
    String[][] directions =
        cut.oneWay() ? new String[][] {{a, b}} : new String[][] {{a, b}, {b, a}};
    for (String[] dir : directions) {
      List<String> args =
          new ArrayList<>(
              List.of(
                  "-A",
                  chain,
                  "-p",
                  "tcp",
                  "-m",
                  "conntrack",
                  "--ctreplsrc",
                  dir[1],
                  "--ctrepldst",
                  dir[0]));
      cut.port().ifPresent(p -> args.addAll(List.of("--ctreplsrcport", Integer.toString(p))));
      if (effect == CutEffect.DROP) {
        args.addAll(List.of("-j", "DROP"));
      } else {
        // the reset REJECT sends belongs to the same connection: without this, the rule eats it
        args.addAll(List.of("-m", "tcp", "!", "--tcp-flags", "RST", "RST"));
        args.addAll(List.of("-j", "REJECT", "--reject-with", "tcp-reset"));
      }
      rules.add(args);
    }
    return rules;
  }

  /** The nat rule that gives group {@code gid}'s connections the source {@code s.address()}. */
  static List<String> source(String natChain, SourceAddress s) {
    return List.of(
        "-t",
        "nat",
        "-A",
        natChain,
        "-p",
        "tcp",
        "-m",
        "owner",
        "--gid-owner",
        Integer.toString(s.gid()),
        "-j",
        "SNAT",
        "--to-source",
        s.address().getHostAddress());
  }
}
