/**
 * Network partitions and clock skew for the chaos run, on one machine, checked on it.
 *
 * <p>The run lives in a network namespace of its own ({@code src/dev/chaos-in-netns.sh}), so its
 * rules touch nothing else. Processes there do not bind the source of their connections (Cassandra
 * 5.0 internode, Kafka, the driver): every connection comes from 127.0.0.1, whatever address the
 * process listens on. So each process that a cut must tell apart is started in a group of its own
 * ({@link io.ambergarden.chaos.net.SourceAddress#launchPrefix()}, via {@code
 * ServerProcess.setLaunchPrefix} or {@code BenchService.start}), and {@link
 * io.ambergarden.chaos.net.Firewall#assign} source-NATs that group's connections to its address.
 * Cuts ({@link io.ambergarden.chaos.net.Cut}) match connections by their conntrack reply tuple, so
 * a cut stops both directions of exactly the connections between its two addresses, open ones too.
 *
 * <pre>
 * Firewall fw = Firewall.fromEnvironment();              // refuses outside the run's namespace
 * for (node i)     { SourceAddress s = SourceAddress.of(0, i, 127.0.0.i);  fw.assign(s);
 *                    node(i).setLaunchPrefix(s.launchPrefix()); }          // before start()
 * for (instance k) { SourceAddress s = SourceAddress.of(20, k, 127.0.1.k); fw.assign(s);
 *                    BenchService.start(cfg, port, jvm, log, s.launchPrefix(), env); }
 * PartitionShape shape = PartitionShape.majorityMinority(shuffled(List.of(1, 2, 3)));
 * fw.cut(Cut.of(shape, i -> nodeAddress(i), OptionalInt.of(7000)), CutEffect.DROP);
 * ProbeMatrix.Report r = ProbeMatrix.check(ProbeMatrix.forShape(shape, i -> nodeAddress(i), 7000, ms(500)));
 * fw.cut(List.of(Cut.onPort(instance1, node3, 9042)), CutEffect.DROP);     // instances from a node
 * fw.healAll();
 * ClockSkew skew = ClockSkew.file(dir.resolve("node3.faketime"));
 * node(3).setLaunchEnvironment(skew.env());                                // before start()
 * skew.set(Duration.ofSeconds(90));                                        // within 1 s, while it runs
 * </pre>
 *
 * <p>{@link io.ambergarden.chaos.net.LinkProxy} adds latency on a link, and can cut it where no
 * source address is wanted (an instance's driver routed through one proxy per node by {@link
 * io.ambergarden.chaos.net.ProxyAddressTranslator}).
 */
package io.ambergarden.chaos.net;
