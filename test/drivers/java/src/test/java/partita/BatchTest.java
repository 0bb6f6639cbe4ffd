package partita;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.DefaultBatchType;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.core.servererrors.InvalidQueryException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Logged batches across two query tables (seed 004), conditional and counter batches. */
class BatchTest {
  static CqlSession s;

  @BeforeAll
  static void setUp() {
    s = Env.session();
    s.execute("CREATE TABLE orders_by_customer (customer_id text, order_id text, status text,"
        + " PRIMARY KEY (customer_id, order_id))");
    s.execute("CREATE TABLE paid_orders_by_customer (customer_id text, order_id text, amount int,"
        + " PRIMARY KEY (customer_id, order_id))");
    s.execute("CREATE TABLE batch_counts (k text PRIMARY KEY, n counter)");
  }

  @Test
  void loggedBatchAcrossTwoTables() {
    PreparedStatement orders = s.prepare("INSERT INTO orders_by_customer (customer_id, order_id, status) VALUES (?, ?, ?)");
    PreparedStatement paid = s.prepare("INSERT INTO paid_orders_by_customer (customer_id, order_id, amount) VALUES (?, ?, ?)");
    BatchStatement batch =
        BatchStatement.builder(DefaultBatchType.LOGGED)
            .addStatement(orders.bind("c1", "o1", "PAID"))
            .addStatement(paid.bind("c1", "o1", 42))
            .addStatement(SimpleStatement.newInstance(
                "INSERT INTO orders_by_customer (customer_id, order_id, status) VALUES (?, ?, ?)", "c1", "o2", "NEW"))
            .build();
    s.execute(batch);
    assertEquals(2, s.execute("SELECT * FROM orders_by_customer WHERE customer_id = 'c1'").all().size());
    assertEquals(42, s.execute("SELECT amount FROM paid_orders_by_customer WHERE customer_id = 'c1' AND order_id = 'o1'")
        .one().getInt(0));
  }

  @Test
  void conditionalBatch() {
    s.execute("INSERT INTO orders_by_customer (customer_id, order_id, status) VALUES ('c2', 'o1', 'NEW')");
    BatchStatement batch =
        BatchStatement.newInstance(DefaultBatchType.LOGGED)
            .add(SimpleStatement.newInstance(
                "UPDATE orders_by_customer SET status = 'PAID' WHERE customer_id = 'c2' AND order_id = 'o1' IF status = 'NEW'"))
            .add(SimpleStatement.newInstance(
                "INSERT INTO orders_by_customer (customer_id, order_id, status) VALUES ('c2', 'o2', 'NEW')"));
    ResultSet rs = s.execute(batch);
    assertTrue(rs.wasApplied());
    rs = s.execute(batch);
    assertFalse(rs.wasApplied());
    assertEquals("PAID", rs.one().getString("status"));
  }

  @Test
  void counterBatch() {
    BatchStatement batch =
        BatchStatement.newInstance(DefaultBatchType.COUNTER)
            .add(SimpleStatement.newInstance("UPDATE batch_counts SET n = n + 1 WHERE k = 'a'"))
            .add(SimpleStatement.newInstance("UPDATE batch_counts SET n = n + 2 WHERE k = 'a'"))
            .add(SimpleStatement.newInstance("UPDATE batch_counts SET n = n - 5 WHERE k = 'b'"));
    s.execute(batch);
    s.execute(batch);
    assertEquals(6L, s.execute("SELECT n FROM batch_counts WHERE k = 'a'").one().getLong(0));
    assertEquals(-10L, s.execute("SELECT n FROM batch_counts WHERE k = 'b'").one().getLong(0));
  }

  @Test
  void counterInLoggedBatchIsRefused() {
    BatchStatement batch =
        BatchStatement.newInstance(DefaultBatchType.LOGGED)
            .add(SimpleStatement.newInstance("UPDATE batch_counts SET n = n + 1 WHERE k = 'a'"));
    InvalidQueryException e = assertThrows(InvalidQueryException.class, () -> s.execute(batch));
    assertEquals("Cannot include a counter statement in a logged batch", e.getMessage());
  }
}
