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
  final InetAddress a = address("127.0.0.1");
  final InetAddress b = address("127.0.0.2");
  final InetAddress c = address("127.0.0.3");

  static InetAddress address(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalArgumentException(literal, e);
    }
  }

  CommandRunner identifying(String namespace) {
    return (cmd, input) -> {
      String line = String.join(" ", cmd);
      issued.add(line + (input.isEmpty() ? "" : " <<" + input));
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
    f.cut(List.of(Cut.onPort(a, b, 7000), Cut.onPort(a, b, 9042)), CutEffect.DROP);
    // one transaction: the four rules strike together
    assertThat(issued).hasSize(1);
    assertThat(issued.get(0))
        .startsWith("iptables-restore -w 5 --noflush <<*filter\n")
        .endsWith("COMMIT\n");
    assertThat(issued.get(0).split("\n-A AMBER_CHAOS ", -1)).hasSize(5);
    issued.clear();
    f.healAll();
    assertThat(issued).containsExactly("iptables -w 5 -F AMBER_CHAOS");
  }

  /** A fake iptables: rules by their text, restore transactions applied whole or not at all. */
  final List<String> present = new ArrayList<>();

  CommandRunner tables() {
    return (cmd, input) -> {
      String line = String.join(" ", cmd);
      issued.add(line);
      if (line.startsWith("ip netns identify")) {
        return List.of("amber-chaos-1");
      }
      if (line.startsWith("iptables-restore")) {
        List<String> after = new ArrayList<>(present);
        for (String l : input.lines().toList()) {
          if (l.startsWith("-A ")) {
            after.add(l.substring(3));
          } else if (l.startsWith("-D ") && !after.remove(l.substring(3))) {
            throw new IllegalStateException("iptables-restore: line failed: Bad rule");
          }
        }
        present.clear();
        present.addAll(after);
      } else if (line.contains(" -D AMBER_CHAOS ")) {
        present.remove(line.substring(line.indexOf(" -D ") + 4));
      } else if (line.contains(" -C AMBER_CHAOS ")
          && !present.contains(line.substring(line.indexOf(" -C ") + 4))) {
        throw new IllegalStateException("iptables: Bad rule (does a matching rule exist?)");
      }
      return List.of();
    };
  }

  @Test
  void uncuttingDeletesOnlyThatCutsRulesInOneTransaction() throws Exception {
    Firewall f = Firewall.inNamespace("amber-chaos-1", 42, tables());
    f.cut(List.of(Cut.onPort(a, b, 7000)), CutEffect.DROP);
    f.cut(List.of(Cut.onPort(a, c, 9042)), CutEffect.DROP);
    assertThat(present).hasSize(4);
    issued.clear();
    f.uncut(List.of(Cut.onPort(a, b, 7000)), CutEffect.DROP);
    assertThat(present).hasSize(2).allMatch(r -> r.contains("9042"));
    assertThat(issued).containsExactly("iptables-restore -w 5 --noflush");
  }

  @Test
  void whenARuleIsAlreadyGoneUncuttingFallsBackToOneRuleAtATime() throws Exception {
    Firewall f = Firewall.inNamespace("amber-chaos-1", 42, tables());
    f.cut(List.of(Cut.onPort(a, b, 7000), Cut.onPort(a, c, 9042)), CutEffect.DROP);
    f.uncut(List.of(Cut.onPort(a, b, 7000)), CutEffect.DROP);
    issued.clear();
    // the 7000 rules are gone: the transaction fails whole, the 9042 rules go one by one
    f.uncut(List.of(Cut.onPort(a, b, 7000), Cut.onPort(a, c, 9042)), CutEffect.DROP);
    assertThat(present).isEmpty();
    assertThat(issued.get(0)).isEqualTo("iptables-restore -w 5 --noflush");
    assertThat(issued.subList(1, issued.size()))
        .filteredOn(l -> l.contains(" -D AMBER_CHAOS "))
        .hasSize(2)
        .allMatch(l -> l.contains("9042"));
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
        (cmd, input) -> {
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
        (cmd, input) -> {
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
