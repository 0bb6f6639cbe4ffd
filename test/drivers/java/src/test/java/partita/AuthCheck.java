package partita;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.AllNodesFailedException;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.auth.AuthenticationException;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Logging in through the driver's PlainTextAuthProvider to a node with authenticator:
 * PasswordAuthenticator (its default superuser cassandra/cassandra). Run by test/e2e
 * TestJavaAuthTLS, which starts that node; not named *Test, so the plain-node suite leaves it out.
 */
class AuthCheck {
  /** A session logging in as role with password through PlainTextAuthProvider's options. */
  static CqlSession login(String role, String password) {
    return CqlSession.builder()
        .withConfigLoader(
            Env.patientConfig()
                .withString(DefaultDriverOption.AUTH_PROVIDER_CLASS, "PlainTextAuthProvider")
                .withString(DefaultDriverOption.AUTH_PROVIDER_USER_NAME, role)
                .withString(DefaultDriverOption.AUTH_PROVIDER_PASSWORD, password)
                .build())
        .addContactPoint(new InetSocketAddress(Env.HOST, Env.PORT))
        .withLocalDatacenter(Env.DATACENTER)
        .build();
  }

  /** The one error the driver met on the one node of a failed connect. */
  static Throwable nodeError(AllNodesFailedException e) {
    List<List<Throwable>> errors = List.copyOf(e.getAllErrors().values());
    assertEquals(1, errors.size(), e.getMessage());
    assertEquals(1, errors.get(0).size(), e.getMessage());
    return errors.get(0).get(0);
  }

  /** Without an authorizer (AllowAllAuthorizer) a role that logs in may use every table. */
  @Test
  void superuserAndANewRoleLogIn() {
    try (CqlSession admin = login("cassandra", "cassandra")) {
      admin.execute("CREATE ROLE IF NOT EXISTS java_app WITH PASSWORD = 'java pw' AND LOGIN = true");
      admin.execute(
          "CREATE KEYSPACE IF NOT EXISTS java_auth"
              + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
      admin.execute("CREATE TABLE IF NOT EXISTS java_auth.t (k int PRIMARY KEY, v text)");
    }
    try (CqlSession app = login("java_app", "java pw")) {
      PreparedStatement insert = app.prepare("INSERT INTO java_auth.t (k, v) VALUES (?, ?)");
      app.execute(insert.bind(1, "one"));
      PreparedStatement select = app.prepare("SELECT v FROM java_auth.t WHERE k = ?");
      assertEquals("one", app.execute(select.bind(1)).one().getString("v"));
    }
  }

  @Test
  void wrongPasswordIsRefused() {
    AllNodesFailedException e =
        assertThrows(AllNodesFailedException.class, () -> login("cassandra", "wrong").close());
    Throwable cause = nodeError(e);
    assertInstanceOf(AuthenticationException.class, cause, cause.toString());
    // Cassandra's text (src/java/org/apache/cassandra/auth/PasswordAuthenticator.java), which
    // the driver quotes as the server's reply.
    assertTrue(
        cause.getMessage().contains(
            "server replied with 'Provided username cassandra and/or password are incorrect'"
                + " to AuthResponse request"),
        cause.getMessage());
  }

  @Test
  void noCredentialsAreRefused() {
    AllNodesFailedException e =
        assertThrows(AllNodesFailedException.class, () -> Env.builder().build().close());
    Throwable cause = nodeError(e);
    assertInstanceOf(AuthenticationException.class, cause, cause.toString());
    // The driver names the authenticator of the node's AUTHENTICATE message.
    assertTrue(
        cause.getMessage().contains("org.apache.cassandra.auth.PasswordAuthenticator"),
        cause.getMessage());
  }
}
