package io.ambergarden.chaos.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The commands the firewall issues, recorded instead of run: no root needed. */
class FirewallTest {
  final List<String> issued = new ArrayList<>();

  CommandRunner identifying(String namespace) {
    return cmd -> {
      String line = String.join(" ", cmd);
      issued.add(line);
      if (line.startsWith("ip netns identify")) {
        return namespace.isEmpty() ? List.of() : List.of(namespace);
      }
      return List.of();
    };
  }

  @Test
  void itRefusesToRunOutsideTheNamedNamespace() {
    assertThatThrownBy(() -> Firewall.inNamespace("amber-chaos-1", 42, identifying("")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not in network namespace amber-chaos-1");
    assertThatThrownBy(() -> Firewall.inNamespace("amber-chaos-1", 42, identifying("other")))
        .isInstanceOf(IllegalStateException.class);
    assertThat(issued).containsExactly("ip netns identify 42", "ip netns identify 42");
  }

  @Test
  void itInstallsItsChainsAndHealsWithOneFlush() throws Exception {
    Firewall f = Firewall.inNamespace("amber-chaos-1", 42, identifying("amber-chaos-1"));
    assertThat(issued)
        .contains(
            "iptables -w 5 -N AMBER_CHAOS",
            "iptables -w 5 -I INPUT 1 -j AMBER_CHAOS",
            "iptables -w 5 -t nat -N AMBER_CHAOS_SRC",
            "iptables -w 5 -t nat -I POSTROUTING 1 -j AMBER_CHAOS_SRC");
    issued.clear();
    InetAddress a = InetAddress.getByName("127.0.0.1");
    InetAddress b = InetAddress.getByName("127.0.0.2");
    f.cut(List.of(Cut.onPort(a, b, 7000)), CutEffect.DROP);
    assertThat(issued).hasSize(2).allMatch(l -> l.startsWith("iptables -w 5 -A AMBER_CHAOS "));
    issued.clear();
    f.healAll();
    assertThat(issued).containsExactly("iptables -w 5 -F AMBER_CHAOS");
  }

  @Test
  void uncuttingDeletesOnlyThatCutsRulesAndSkipsRulesAlreadyGone() throws Exception {
    List<String> present = new ArrayList<>();
    CommandRunner runner =
        cmd -> {
          String line = String.join(" ", cmd);
          issued.add(line);
          if (line.startsWith("ip netns identify")) {
            return List.of("amber-chaos-1");
          }
          if (line.contains(" -A AMBER_CHAOS ")) {
            present.add(line.replace(" -A ", " "));
          } else if (line.contains(" -D AMBER_CHAOS ")) {
            present.remove(line.replace(" -D ", " "));
          } else if (line.contains(" -C AMBER_CHAOS ")
              && !present.contains(line.replace(" -C ", " "))) {
            throw new IllegalStateException("iptables: Bad rule (does a matching rule exist?)");
          }
          return List.of();
        };
    Firewall f = Firewall.inNamespace("amber-chaos-1", 42, runner);
    InetAddress a = InetAddress.getByName("127.0.0.1");
    InetAddress b = InetAddress.getByName("127.0.0.2");
    InetAddress c = InetAddress.getByName("127.0.0.3");
    f.cut(List.of(Cut.onPort(a, b, 7000)), CutEffect.DROP);
    f.cut(List.of(Cut.onPort(a, c, 9042)), CutEffect.DROP);
    assertThat(present).hasSize(4);
    f.uncut(List.of(Cut.onPort(a, b, 7000)), CutEffect.DROP);
    assertThat(present).hasSize(2).allMatch(r -> r.contains("9042"));
    issued.clear();
    f.uncut(List.of(Cut.onPort(a, b, 7000)), CutEffect.DROP);
    assertThat(issued).hasSize(2).allMatch(l -> l.contains(" -C AMBER_CHAOS "));
    assertThat(present).hasSize(2);
  }

  @Test
  void closingRemovesBothChainsAndTheFirewallCannotBeUsedAfter() {
    Firewall f = Firewall.inNamespace("amber-chaos-1", 42, identifying("amber-chaos-1"));
    issued.clear();
    f.close();
    assertThat(issued)
        .containsExactly(
            "iptables -w 5 -F AMBER_CHAOS",
            "iptables -w 5 -D INPUT -j AMBER_CHAOS",
            "iptables -w 5 -X AMBER_CHAOS",
            "iptables -w 5 -t nat -F AMBER_CHAOS_SRC",
            "iptables -w 5 -t nat -D POSTROUTING -j AMBER_CHAOS_SRC",
            "iptables -w 5 -t nat -X AMBER_CHAOS_SRC");
    assertThatThrownBy(f::healAll).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aChainLeftByACrashedRunIsFlushedNotCreatedAgain() {
    CommandRunner leftOver =
        cmd -> {
          String line = String.join(" ", cmd);
          issued.add(line);
          if (line.startsWith("ip netns identify")) {
            return List.of("amber-chaos-1");
          }
          if (line.equals("iptables -w 5 -S")) {
            return List.of("-P INPUT ACCEPT", "-N AMBER_CHAOS");
          }
          if (line.equals("iptables -w 5 -S INPUT")) {
            return List.of("-P INPUT ACCEPT", "-A INPUT -j AMBER_CHAOS");
          }
          return List.of();
        };
    Firewall.inNamespace("amber-chaos-1", 42, leftOver);
    assertThat(issued)
        .contains("iptables -w 5 -F AMBER_CHAOS")
        .doesNotContain("iptables -w 5 -N AMBER_CHAOS", "iptables -w 5 -I INPUT 1 -j AMBER_CHAOS");
  }

  @Test
  void activeRulesAreTheAppendLinesOfTheChain() {
    CommandRunner listing =
        cmd -> {
          String line = String.join(" ", cmd);
          if (line.startsWith("ip netns identify")) {
            return List.of("amber-chaos-1");
          }
          if (line.equals("iptables -w 5 -S AMBER_CHAOS")) {
            return List.of("-N AMBER_CHAOS", "-A AMBER_CHAOS -p tcp -j DROP");
          }
          return List.of();
        };
    Firewall f = Firewall.inNamespace("amber-chaos-1", 42, listing);
    assertThat(f.activeRules()).containsExactly("-A AMBER_CHAOS -p tcp -j DROP");
  }
}
