package io.ambergarden.chaos.net;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Partitions by iptables in the network namespace this JVM runs in, never outside one: {@link
 * #inNamespace} refuses unless {@code ip netns identify} names the run's own namespace (see
 * src/dev/chaos-in-netns.sh). Cuts live in a filter chain of their own, so healing is one flush;
 * {@link SourceAddress source addresses} in a nat chain of their own. Closing removes both.
 */
public final class Firewall implements AutoCloseable {
  static final String CHAIN = "AMBER_CHAOS";
  static final String NAT_CHAIN = "AMBER_CHAOS_SRC";

  /** Set by src/dev/chaos-in-netns.sh to the namespace it created for the run. */
  public static final String NAMESPACE_ENV = "AMBER_CHAOS_NETNS";

  /** Adds to the tables instead of replacing them; waits for the xtables lock like the rest. */
  private static final List<String> RESTORE = List.of("iptables-restore", "-w", "5", "--noflush");

  private final CommandRunner commands;
  private boolean closed;

  private Firewall(CommandRunner commands) {
    this.commands = commands;
  }

  /** A firewall in the namespace named by {@value #NAMESPACE_ENV}. */
  public static Firewall fromEnvironment() {
    String ns = System.getenv(NAMESPACE_ENV);
    if (ns == null || ns.isBlank()) {
      throw new IllegalStateException(
          NAMESPACE_ENV
              + " is not set: run inside src/dev/chaos-in-netns.sh, never in the host's"
              + " network namespace");
    }
    return inNamespace(ns);
  }

  /** A firewall if this JVM runs in network namespace {@code namespace}; else an exception. */
  public static Firewall inNamespace(String namespace) {
    return inNamespace(namespace, ProcessHandle.current().pid(), CommandRunner.system());
  }

  static Firewall inNamespace(String namespace, long pid, CommandRunner commands) {
    if (namespace == null || namespace.isBlank()) {
      throw new IllegalArgumentException("no namespace named");
    }
    List<String> found = commands.run(List.of("ip", "netns", "identify", Long.toString(pid)));
    // identify prints every name of the process's namespace: none in the host's own
    if (!found.stream().map(String::strip).toList().contains(namespace)) {
      throw new IllegalStateException(
          "refusing to change iptables: this process (pid "
              + pid
              + ") is not in network namespace "
              + namespace
              + " (ip netns identify says "
              + found
              + ")");
    }
    Firewall f = new Firewall(commands);
    f.install();
    return f;
  }

  private void install() {
    installChain(List.of(), CHAIN, "INPUT");
    installChain(List.of("-t", "nat"), NAT_CHAIN, "POSTROUTING");
  }

  /** Creates (or flushes: a crashed run's rules must not outlive it) a chain and its jump. */
  private void installChain(List<String> table, String chain, String from) {
    boolean exists = iptables(table, "-S").stream().anyMatch(l -> l.strip().equals("-N " + chain));
    iptables(table, exists ? "-F" : "-N", chain);
    boolean jumps =
        iptables(table, "-S", from).stream()
            .anyMatch(l -> l.strip().equals("-A " + from + " -j " + chain));
    if (!jumps) {
      iptables(table, "-I", from, "1", "-j", chain);
    }
  }

  /**
   * From now on, connections opened by processes of group {@code s.gid()} come from {@code
   * s.address()}; start those processes with {@link SourceAddress#launchPrefix()}. Stays until
   * {@link #close}: healing does not undo it.
   */
  public synchronized void assign(SourceAddress s) {
    requireOpen();
    iptables(IptablesRules.source(NAT_CHAIN, s).toArray(String[]::new));
  }

  /** The source rules in force, as {@code iptables -t nat -S} prints them. */
  public synchronized List<String> sourceRules() {
    requireOpen();
    return iptables(List.of("-t", "nat"), "-S", NAT_CHAIN).stream()
        .filter(l -> l.startsWith("-A "))
        .map(String::strip)
        .toList();
  }

  /**
   * Cuts every link, both ways, until {@link #healAll}: all at once, in one iptables-restore
   * transaction, as a real partition strikes.
   */
  public synchronized void cut(Collection<Cut> cuts, CutEffect effect) {
    requireOpen();
    commands.run(RESTORE, transaction(rules(cuts, effect), "-A"));
  }

  /**
   * Removes these cuts only (made with the same effect), leaving any other fault's cuts in force:
   * all at once, as a partition heals. If a rule is already gone the transaction fails whole and
   * changes nothing; then the rules are removed one by one, skipping those gone.
   */
  public synchronized void uncut(Collection<Cut> cuts, CutEffect effect) {
    requireOpen();
    List<List<String>> rules = rules(cuts, effect);
    if (commands.succeeds(RESTORE, transaction(rules, "-D"))) {
      return;
    }
    for (List<String> rule : rules) {
      if (commands.succeeds(iptablesCommand(List.of(), withOp(rule, "-C")))) {
        iptables(withOp(rule, "-D"));
      }
    }
  }

  /** Every cut's {@code -A} rules, in order. */
  private static List<List<String>> rules(Collection<Cut> cuts, CutEffect effect) {
    List<List<String>> rules = new ArrayList<>();
    cuts.forEach(c -> rules.addAll(IptablesRules.cut(CHAIN, c, effect)));
    return rules;
  }

  /** The rule's arguments with its {@code -A} replaced by {@code op} ({@code -C}, {@code -D}). */
  private static String[] withOp(List<String> rule, String op) {
    String[] args = rule.toArray(String[]::new);
    args[0] = op;
    return args;
  }

  /** The filter-table input of iptables-restore that applies {@code op} to every rule. */
  private static String transaction(List<List<String>> rules, String op) {
    StringBuilder in = new StringBuilder("*filter\n");
    rules.forEach(r -> in.append(String.join(" ", withOp(r, op))).append('\n'));
    return in.append("COMMIT\n").toString();
  }

  /** Removes every cut at once. */
  public synchronized void healAll() {
    requireOpen();
    iptables("-F", CHAIN);
  }

  /** The rules in force, as {@code iptables -S} prints them; empty when healed. */
  public synchronized List<String> activeRules() {
    requireOpen();
    List<String> rules = new ArrayList<>();
    for (String line : iptables("-S", CHAIN)) {
      if (line.startsWith("-A ")) {
        rules.add(line.strip());
      }
    }
    return rules;
  }

  /** Heals and removes the chain. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    iptables("-F", CHAIN);
    iptables("-D", "INPUT", "-j", CHAIN);
    iptables("-X", CHAIN);
    List<String> nat = List.of("-t", "nat");
    iptables(nat, "-F", NAT_CHAIN);
    iptables(nat, "-D", "POSTROUTING", "-j", NAT_CHAIN);
    iptables(nat, "-X", NAT_CHAIN);
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("firewall closed");
    }
  }

  private List<String> iptables(String... args) {
    return iptables(List.of(), args);
  }

  private List<String> iptables(List<String> table, String... args) {
    return commands.run(iptablesCommand(table, args));
  }

  private static List<String> iptablesCommand(List<String> table, String... args) {
    List<String> cmd = new ArrayList<>(List.of("iptables", "-w", "5"));
    cmd.addAll(table);
    cmd.addAll(List.of(args));
    return cmd;
  }
}
