package io.ambergarden.chaos.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class IptablesRulesTest {
  static InetAddress ip(int last) throws Exception {
    return InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) last});
  }

  @Test
  void aPortCutMatchesTheConnectionsToThatPortOpenedFromEitherSide() throws Exception {
    List<List<String>> rules =
        IptablesRules.cut("C", Cut.onPort(ip(1), ip(3), 7000), CutEffect.DROP);
    assertThat(rules)
        .extracting(r -> String.join(" ", r))
        .containsExactly(
            "-A C -p tcp -m conntrack --ctreplsrc 127.0.0.3 --ctrepldst 127.0.0.1 --ctreplsrcport 7000 -j DROP",
            "-A C -p tcp -m conntrack --ctreplsrc 127.0.0.1 --ctrepldst 127.0.0.3 --ctreplsrcport 7000 -j DROP");
  }

  @Test
  void aOneWayCutMatchesOnlyTheConnectionsOpenedFromItsFirstAddress() throws Exception {
    List<List<String>> rules =
        IptablesRules.cut("C", Cut.opened(ip(12), ip(1), 9192), CutEffect.DROP);
    assertThat(rules)
        .extracting(r -> String.join(" ", r))
        .containsExactly(
            "-A C -p tcp -m conntrack --ctreplsrc 127.0.0.1 --ctrepldst 127.0.0.12 --ctreplsrcport 9192 -j DROP");
  }

  @Test
  void anAddressCutHasNoPort() throws Exception {
    List<List<String>> rules = IptablesRules.cut("C", Cut.between(ip(1), ip(2)), CutEffect.DROP);
    assertThat(rules).hasSize(2).noneMatch(r -> r.contains("--ctreplsrcport"));
  }

  @Test
  void aResetCutRejectsWithATcpResetButLetsItsOwnResetsThrough() throws Exception {
    List<List<String>> rules = IptablesRules.cut("C", Cut.between(ip(1), ip(2)), CutEffect.RESET);
    assertThat(rules)
        .allSatisfy(
            r ->
                assertThat(String.join(" ", r))
                    .endsWith("-m tcp ! --tcp-flags RST RST -j REJECT --reject-with tcp-reset"));
  }

  @Test
  void aSourceAddressIsSourceNatOfTheProcessGroup() throws Exception {
    assertThat(String.join(" ", IptablesRules.source("N", SourceAddress.of(0, 3, ip(3)))))
        .isEqualTo("-t nat -A N -p tcp -m owner --gid-owner 41003 -j SNAT --to-source 127.0.0.3");
  }

  @Test
  void cutsOfAShapeFollowItsPairs() throws Exception {
    List<Cut> cuts =
        Cut.of(
            PartitionShape.isolate(2, List.of(1, 2, 3)),
            i -> {
              try {
                return ip(i);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            OptionalInt.of(9092));
    assertThat(cuts)
        .extracting(Cut::toString)
        .containsExactly("127.0.0.1<->127.0.0.2 port 9092", "127.0.0.2<->127.0.0.3 port 9092");
  }
}
