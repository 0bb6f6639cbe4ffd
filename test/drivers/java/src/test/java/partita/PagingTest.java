package partita;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.DefaultBatchType;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Automatic, manual and asynchronous paging over one partition and many. */
class PagingTest {
  static CqlSession s;
  static final int ROWS = 1000;

  @BeforeAll
  static void setUp() {
    s = Env.session();
    s.execute("CREATE TABLE paging_one (p int, c int, v text, PRIMARY KEY (p, c))");
    s.execute("CREATE TABLE paging_many (p int PRIMARY KEY, v text)");
    PreparedStatement one = s.prepare("INSERT INTO paging_one (p, c, v) VALUES (0, ?, ?)");
    PreparedStatement many = s.prepare("INSERT INTO paging_many (p, v) VALUES (?, ?)");
    for (int start = 0; start < ROWS; start += 100) {
      BatchStatement batch = BatchStatement.newInstance(DefaultBatchType.UNLOGGED);
      for (int i = start; i < start + 100; i++) {
        batch = batch.add(one.bind(i, "v" + i));
      }
      s.execute(batch);
    }
    for (int i = 0; i < ROWS; i++) {
      s.execute(many.bind(i, "v" + i));
    }
  }

  @Test
  void automaticPagingInOnePartition() {
    ResultSet rs = s.execute(SimpleStatement.newInstance("SELECT c, v FROM paging_one WHERE p = 0").setPageSize(7));
    List<Integer> seen = new ArrayList<>();
    for (Row r : rs) {
      seen.add(r.getInt("c"));
    }
    assertEquals(ROWS, seen.size());
    for (int i = 0; i < ROWS; i++) {
      assertEquals(i, seen.get(i));
    }
    assertTrue(rs.isFullyFetched());
  }

  @Test
  void automaticPagingOverPartitionsVisitsEachOnce() {
    ResultSet rs = s.execute(SimpleStatement.newInstance("SELECT p, token(p) FROM paging_many").setPageSize(13));
    List<Integer> keys = new ArrayList<>();
    long lastToken = Long.MIN_VALUE;
    for (Row r : rs) {
      keys.add(r.getInt(0));
      long token = r.getLong(1);
      assertTrue(token >= lastToken, "rows in token order");
      lastToken = token;
    }
    assertEquals(ROWS, keys.size());
    assertEquals(ROWS, keys.stream().distinct().count());
  }

  @Test
  void manualPagingWithSavedState() {
    SimpleStatement stmt =
        SimpleStatement.newInstance("SELECT c FROM paging_one WHERE p = 0 AND c >= 100 AND c < 150").setPageSize(20);
    ResultSet first = s.execute(stmt);
    assertEquals(20, first.getAvailableWithoutFetching());
    List<Integer> page = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      page.add(first.one().getInt(0));
    }
    assertEquals(100, page.get(0));
    ByteBuffer state = first.getExecutionInfo().getPagingState();
    // The saved state resumes on another execution of the same statement.
    ResultSet second = s.execute(stmt.setPagingState(state));
    assertEquals(120, second.one().getInt(0));
    ResultSet third = s.execute(stmt.setPagingState(second.getExecutionInfo().getPagingState()));
    assertEquals(10, third.getAvailableWithoutFetching());
    assertEquals(140, third.one().getInt(0));
    assertNull(third.getExecutionInfo().getPagingState());
  }

  @Test
  void asyncPaging() throws ExecutionException, InterruptedException {
    CompletionStage<AsyncResultSet> stage =
        s.executeAsync(SimpleStatement.newInstance("SELECT c FROM paging_one WHERE p = 0 ORDER BY c DESC").setPageSize(99));
    List<Integer> seen = new ArrayList<>();
    AsyncResultSet rs = stage.toCompletableFuture().get();
    while (true) {
      for (Row r : rs.currentPage()) {
        seen.add(r.getInt(0));
      }
      if (!rs.hasMorePages()) {
        break;
      }
      rs = rs.fetchNextPage().toCompletableFuture().get();
    }
    assertEquals(ROWS, seen.size());
    assertEquals(ROWS - 1, seen.get(0));
    assertEquals(0, seen.get(ROWS - 1));
    assertFalse(rs.hasMorePages());
  }
}
