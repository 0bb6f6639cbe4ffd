package partita;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DefaultProtocolVersion;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.metadata.Node;
import java.util.Collection;
import org.junit.jupiter.api.Test;

/** Connecting with the driver's defaults: version negotiation, system tables, USE. */
class ConnectTest {
  @Test
  void negotiatesDownToV4() {
    // Driver 4.x asks for v5 first; the node answers with a protocol error
    // naming the versions it supports and the driver retries with v4.
    try (CqlSession s = Env.builder().build()) {
      assertEquals(DefaultProtocolVersion.V4, s.getContext().getProtocolVersion());
      Row local = s.execute("SELECT release_version, data_center, partitioner FROM system.local").one();
      assertNotNull(local);
      assertTrue(local.getString("release_version").matches("\\d+\\.\\d+.*"), local.getString("release_version"));
      assertEquals(Env.DATACENTER, local.getString("data_center"));
      assertEquals("org.apache.cassandra.dht.Murmur3Partitioner", local.getString("partitioner"));
    }
  }

  @Test
  void metadataListsTheNode() {
    CqlSession s = Env.session();
    Collection<Node> nodes = s.getMetadata().getNodes().values();
    assertEquals(1, nodes.size());
    Node node = nodes.iterator().next();
    assertEquals(Env.DATACENTER, node.getDatacenter());
    assertTrue(s.getMetadata().getTokenMap().isPresent(), "token map");
  }

  @Test
  void sessionKeyspace() {
    Env.session(); // creates the keyspace
    try (CqlSession s = Env.builder().withKeyspace(Env.KEYSPACE).build()) {
      assertEquals(Env.KEYSPACE, s.getKeyspace().get().asInternal());
      s.execute("CREATE TABLE IF NOT EXISTS connect_probe (k int PRIMARY KEY, v text)");
      s.execute("INSERT INTO connect_probe (k, v) VALUES (1, 'one')");
      assertEquals("one", s.execute("SELECT v FROM connect_probe WHERE k = 1").one().getString("v"));
    }
  }
}
