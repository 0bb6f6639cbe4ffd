package partita;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.ColumnDefinition;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Lightweight transactions: seed 004's order_state (IF NOT EXISTS, IF version = 3), the result
 * rows Cassandra returns (ModificationStatement.buildCasResultSet), serial consistency, and
 * contended compare-and-set increments that must not lose an update.
 */
class LwtTest {
  static CqlSession s;

  @BeforeAll
  static void setUp() {
    s = Env.session();
    s.execute("CREATE TABLE order_state (order_id text PRIMARY KEY, version int, state text)");
    s.execute("CREATE TABLE lwt_counter (k int PRIMARY KEY, n int)");
  }

  static List<String> columns(ResultSet rs) {
    List<String> out = new ArrayList<>();
    for (ColumnDefinition d : rs.getColumnDefinitions()) {
      out.add(d.getName().asInternal());
    }
    return out;
  }

  @Test
  void seedVersionCheck() {
    String insert = "INSERT INTO order_state (order_id, version, state) VALUES ('order-1', 3, 'PAID') IF NOT EXISTS";
    ResultSet rs = s.execute(insert);
    assertTrue(rs.wasApplied());
    assertEquals(List.of("[applied]"), columns(rs));

    rs = s.execute(insert);
    assertFalse(rs.wasApplied());
    assertEquals(List.of("[applied]", "order_id", "state", "version"), columns(rs));
    Row current = rs.one();
    assertEquals("PAID", current.getString("state"));
    assertEquals(3, current.getInt("version"));

    String update = "UPDATE order_state SET state = 'SHIPPED', version = 4 WHERE order_id = 'order-1' IF version = 3";
    rs = s.execute(SimpleStatement.newInstance(update).setSerialConsistencyLevel(ConsistencyLevel.LOCAL_SERIAL));
    assertTrue(rs.wasApplied());
    rs = s.execute(update);
    assertFalse(rs.wasApplied());
    assertEquals(List.of("[applied]", "version"), columns(rs));
    assertEquals(4, rs.one().getInt("version"));

    Row row =
        s.execute(
                SimpleStatement.newInstance("SELECT version, state FROM order_state WHERE order_id = 'order-1'")
                    .setConsistencyLevel(ConsistencyLevel.SERIAL))
            .one();
    assertEquals(4, row.getInt("version"));
    assertEquals("SHIPPED", row.getString("state"));

    rs = s.execute("UPDATE order_state SET state = 'X' WHERE order_id = 'missing' IF EXISTS");
    assertFalse(rs.wasApplied());
    assertEquals(List.of("[applied]"), columns(rs));
    rs = s.execute("DELETE FROM order_state WHERE order_id = 'order-1' IF state = 'SHIPPED'");
    assertTrue(rs.wasApplied());
  }

  @Test
  void contendedIncrementsLoseNothing() throws Exception {
    s.execute("INSERT INTO lwt_counter (k, n) VALUES (1, 0)");
    PreparedStatement read = s.prepare("SELECT n FROM lwt_counter WHERE k = 1");
    PreparedStatement cas = s.prepare("UPDATE lwt_counter SET n = ? WHERE k = 1 IF n = ?");
    int workers = 8;
    int perWorker = 50;
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    List<Future<Integer>> done = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      done.add(
          pool.submit(
              () -> {
                int applied = 0;
                while (applied < perWorker) {
                  int n = s.execute(read.bind().setConsistencyLevel(ConsistencyLevel.SERIAL)).one().getInt(0);
                  if (s.execute(cas.bind(n + 1, n)).wasApplied()) {
                    applied++;
                  }
                }
                return applied;
              }));
    }
    int total = 0;
    for (Future<Integer> f : done) {
      total += f.get(2, TimeUnit.MINUTES);
    }
    pool.shutdown();
    assertEquals(workers * perWorker, total);
    assertEquals(total, s.execute("SELECT n FROM lwt_counter WHERE k = 1").one().getInt(0));
  }
}
