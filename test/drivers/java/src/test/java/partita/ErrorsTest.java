package partita;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.servererrors.AlreadyExistsException;
import com.datastax.oss.driver.api.core.servererrors.InvalidQueryException;
import com.datastax.oss.driver.api.core.servererrors.SyntaxError;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Errors come back with their protocol class and the session keeps working. */
class ErrorsTest {
  static CqlSession s;

  @BeforeAll
  static void setUp() {
    s = Env.session();
    s.execute("CREATE TABLE err_probe (k int PRIMARY KEY, v text)");
    s.execute("INSERT INTO err_probe (k, v) VALUES (1, 'alive')");
  }

  static void assertAlive() {
    assertEquals("alive", s.execute("SELECT v FROM err_probe WHERE k = 1").one().getString(0));
  }

  @Test
  void syntaxErrors() {
    for (String q : new String[] {"SELEC * FROM err_probe", "SELECT * FROM err_probe WHERE", "INSERT INTO err_probe (k) VALUES (1"}) {
      assertThrows(SyntaxError.class, () -> s.execute(q), q);
      assertAlive();
    }
    assertThrows(SyntaxError.class, () -> s.prepare("SELECT * FROM err_probe WHERE k = ?? "));
    assertAlive();
  }

  @Test
  void invalidQueries() {
    for (String q : new String[] {
        "SELECT * FROM no_such_table",
        "INSERT INTO err_probe (k, v) VALUES ('not an int', 'x')",
        "SELECT nope FROM err_probe WHERE k = 1",
        "INSERT INTO err_probe (v) VALUES ('no key')"}) {
      assertThrows(InvalidQueryException.class, () -> s.execute(q), q);
      assertAlive();
    }
    InvalidQueryException e =
        assertThrows(InvalidQueryException.class, () -> s.execute("SELECT * FROM err_probe WHERE v = 'x'"));
    assertEquals(
        "Cannot execute this query as it might involve data filtering and thus may have unpredictable"
            + " performance. If you want to execute this query despite the performance unpredictability,"
            + " use ALLOW FILTERING",
        e.getMessage());
    assertThrows(InvalidQueryException.class, () -> s.prepare("SELECT * FROM no_such_table WHERE k = ?"));
    assertAlive();
  }

  @Test
  void alreadyExists() {
    AlreadyExistsException e =
        assertThrows(AlreadyExistsException.class, () -> s.execute("CREATE TABLE err_probe (k int PRIMARY KEY)"));
    // The driver keeps the keyspace and table of the error only in its message.
    assertTrue(e.getMessage().contains("err_probe"), e.getMessage());
    assertAlive();
  }
}
