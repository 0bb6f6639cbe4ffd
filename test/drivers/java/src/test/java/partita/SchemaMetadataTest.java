package partita;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.CqlIdentifier;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.metadata.schema.ClusteringOrder;
import com.datastax.oss.driver.api.core.metadata.schema.ColumnMetadata;
import com.datastax.oss.driver.api.core.metadata.schema.KeyspaceMetadata;
import com.datastax.oss.driver.api.core.metadata.schema.TableMetadata;
import com.datastax.oss.driver.api.core.type.DataTypes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The driver's schema metadata, and its refresh after our DDL and another client's. */
class SchemaMetadataTest {
  static CqlSession s;

  @BeforeAll
  static void setUp() {
    s = Env.session();
    s.execute(
        "CREATE TABLE meta_events (asset_id text, day date, event_ts timestamp, seq int,"
            + " payload text, tags set<text>, attrs map<text, int>,"
            + " PRIMARY KEY ((asset_id, day), event_ts, seq))"
            + " WITH CLUSTERING ORDER BY (event_ts DESC, seq ASC)");
  }

  static KeyspaceMetadata keyspace(CqlSession session) {
    return session.getMetadata().getKeyspace(Env.KEYSPACE).orElseThrow();
  }

  static List<String> names(List<ColumnMetadata> cols) {
    List<String> out = new ArrayList<>();
    for (ColumnMetadata c : cols) {
      out.add(c.getName().asInternal());
    }
    return out;
  }

  @Test
  void keyspaceAndSystemKeyspaces() {
    KeyspaceMetadata ks = keyspace(s);
    assertEquals("org.apache.cassandra.locator.SimpleStrategy", ks.getReplication().get("class"));
    assertEquals("1", ks.getReplication().get("replication_factor"));
    // Driver 4.x leaves the system keyspaces out of its schema metadata by
    // default (advanced.metadata.schema.refreshed-keyspaces).
    assertFalse(s.getMetadata().getKeyspace("system_schema").isPresent());
  }

  @Test
  void columnsKeysAndOrder() {
    TableMetadata t = keyspace(s).getTable("meta_events").orElseThrow();
    assertEquals(List.of("asset_id", "day"), names(t.getPartitionKey()));
    Map<ColumnMetadata, ClusteringOrder> clustering = t.getClusteringColumns();
    assertEquals(List.of("event_ts", "seq"), names(new ArrayList<>(clustering.keySet())));
    assertEquals(
        List.of(ClusteringOrder.DESC, ClusteringOrder.ASC), new ArrayList<>(clustering.values()));
    assertEquals(DataTypes.TEXT, t.getColumn("asset_id").orElseThrow().getType());
    assertEquals(DataTypes.DATE, t.getColumn("day").orElseThrow().getType());
    assertEquals(DataTypes.TIMESTAMP, t.getColumn("event_ts").orElseThrow().getType());
    assertEquals(DataTypes.setOf(DataTypes.TEXT), t.getColumn("tags").orElseThrow().getType());
    assertEquals(
        DataTypes.mapOf(DataTypes.TEXT, DataTypes.INT), t.getColumn("attrs").orElseThrow().getType());
    String cql = t.describe(true);
    assertTrue(cql.contains("PRIMARY KEY ((asset_id, day), event_ts, seq)"), cql);
    assertTrue(cql.contains("CLUSTERING ORDER BY (event_ts DESC, seq ASC)"), cql);
  }

  @Test
  void ownDdlRefreshesMetadata() {
    s.execute("CREATE TABLE meta_created (k int PRIMARY KEY, v text)");
    assertTrue(keyspace(s).getTable("meta_created").isPresent());
    s.execute("ALTER TABLE meta_created ADD extra bigint");
    Optional<ColumnMetadata> extra =
        keyspace(s).getTable("meta_created").orElseThrow().getColumn("extra");
    assertEquals(DataTypes.BIGINT, extra.orElseThrow().getType());
    s.execute("CREATE TYPE meta_point (x double, y double)");
    assertTrue(keyspace(s).getUserDefinedType("meta_point").isPresent());
    s.execute("DROP TABLE meta_created");
    assertFalse(keyspace(s).getTable("meta_created").isPresent());
  }

  /**
   * Bounds a lost schema event, not an expected delay (the driver refreshes its metadata about a
   * second after the event; a loaded machine only makes that longer), so it is generous.
   */
  private static final long SCHEMA_EVENT_WAIT_MS = 60_000;

  @Test
  void otherClientsDdlArrivesAsSchemaEvents() throws InterruptedException {
    try (CqlSession other = Env.builder().withKeyspace(Env.KEYSPACE).build()) {
      other.execute("CREATE TABLE meta_remote (k int PRIMARY KEY, v text)");
      assertTrue(
          Env.waitFor(() -> keyspace(s).getTable("meta_remote").isPresent(), SCHEMA_EVENT_WAIT_MS),
          "CREATE TABLE from another client not seen");
      other.execute("ALTER TABLE meta_remote ADD note text");
      assertTrue(
          Env.waitFor(
              () -> keyspace(s).getTable("meta_remote").orElseThrow().getColumn("note").isPresent(),
              SCHEMA_EVENT_WAIT_MS),
          "ALTER TABLE from another client not seen");
      other.execute("DROP TABLE meta_remote");
      assertTrue(
          Env.waitFor(() -> keyspace(s).getTable("meta_remote").isEmpty(), SCHEMA_EVENT_WAIT_MS),
          "DROP TABLE from another client not seen");
    }
    assertTrue(s.getMetadata().getKeyspace(CqlIdentifier.fromInternal(Env.KEYSPACE)).isPresent());
  }
}
