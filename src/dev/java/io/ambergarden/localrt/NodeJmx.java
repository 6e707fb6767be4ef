package io.ambergarden.localrt;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * The few nodetool operations the local cluster and its tests need, over the node's local JMX port
 * in this JVM (no nodetool process): who is up, flush, which sstables hold a key, pending hints.
 */
public final class NodeJmx implements AutoCloseable {
  private static final String STORAGE_SERVICE = "org.apache.cassandra.db:type=StorageService";
  private static final String HINTS_SERVICE = "org.apache.cassandra.hints:type=HintsService";

  private final JMXConnector connector;
  private final MBeanServerConnection mbeans;

  private NodeJmx(JMXConnector connector) throws IOException {
    this.connector = connector;
    this.mbeans = connector.getMBeanServerConnection();
  }

  static NodeJmx connect(int port) {
    try {
      JMXServiceURL url =
          new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
      return new NodeJmx(JMXConnectorFactory.connect(url, Map.of()));
    } catch (IOException e) {
      throw new LocalRuntimeException("no JMX on 127.0.0.1:" + port + ": " + e, e);
    }
  }

  /** Addresses ("127.0.0.2") this node's gossip sees up, itself included. */
  @SuppressWarnings("unchecked")
  public List<String> liveNodes() {
    return (List<String>) attribute(STORAGE_SERVICE, "LiveNodes");
  }

  /** Addresses this node's gossip knows but sees down. */
  @SuppressWarnings("unchecked")
  public List<String> unreachableNodes() {
    return (List<String>) attribute(STORAGE_SERVICE, "UnreachableNodes");
  }

  /** Compactions this node has pending (nodetool compactionstats). */
  public int pendingCompactions() {
    return ((Number)
            attribute("org.apache.cassandra.metrics:type=Compaction,name=PendingTasks", "Value"))
        .intValue();
  }

  /** nodetool setcompactionthroughput: the node's compaction cap in MiB/s, 0 for none. */
  public void compactionThroughput(int mibPerSecond) {
    invoke(
        STORAGE_SERVICE,
        "setCompactionThroughputMbPerSec",
        new Object[] {mibPerSecond},
        new String[] {int.class.getName()});
  }

  /** nodetool getcompactionthroughput, in MiB/s (0: none). */
  public int compactionThroughput() {
    return ((Number) attribute(STORAGE_SERVICE, "CompactionThroughputMbPerSec")).intValue();
  }

  /** nodetool flush: memtables of the tables to sstables. */
  public void flush(String keyspace, String... tables) {
    invoke(
        STORAGE_SERVICE,
        "forceKeyspaceFlush",
        new Object[] {keyspace, tables},
        new String[] {String.class.getName(), String[].class.getName()});
  }

  /**
   * nodetool getsstables: this node's live sstables that hold the partition; {@code key} in
   * Cassandra's string form (components of a composite key joined with ':').
   */
  @SuppressWarnings("unchecked")
  public List<String> sstablesForKey(String keyspace, String table, String key) {
    return (List<String>)
        invoke(
            "org.apache.cassandra.db:type=Tables,keyspace=" + keyspace + ",table=" + table,
            "getSSTablesForKey",
            new Object[] {key, false},
            new String[] {String.class.getName(), boolean.class.getName()});
  }

  /** nodetool listpendinghints: one entry per peer this node holds hints for. */
  @SuppressWarnings("unchecked")
  public List<Map<String, String>> pendingHints() {
    return (List<Map<String, String>>)
        invoke(HINTS_SERVICE, "getPendingHints", new Object[0], new String[0]);
  }

  private Object attribute(String bean, String name) {
    try {
      return mbeans.getAttribute(new ObjectName(bean), name);
    } catch (Exception e) {
      throw new LocalRuntimeException("JMX " + bean + " " + name + ": " + e, e);
    }
  }

  private Object invoke(String bean, String op, Object[] args, String[] signature) {
    try {
      return mbeans.invoke(new ObjectName(bean), op, args, signature);
    } catch (Exception e) {
      throw new LocalRuntimeException("JMX " + bean + " " + op + ": " + e, e);
    }
  }

  @Override
  public void close() {
    try {
      connector.close();
    } catch (IOException e) {
      // the node may be gone already
    }
  }
}
