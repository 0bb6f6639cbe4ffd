package partita;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.CqlSessionBuilder;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.config.ProgrammaticDriverConfigLoaderBuilder;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * Connection helpers shared by the suite. The suite talks to the node at
 * PARTITA_HOST (default 127.0.0.1) and PARTITA_PORT (default 9042) with the
 * driver's defaults: only the contact point and, as driver 4.x requires with
 * explicit contact points, the local datacenter are given.
 *
 * <p>Every test class works in KEYSPACE, which the first caller of session()
 * drops and recreates, so a run starts from an empty keyspace.
 */
final class Env {
  static final String HOST = System.getenv().getOrDefault("PARTITA_HOST", "127.0.0.1");
  static final int PORT = Integer.parseInt(System.getenv().getOrDefault("PARTITA_PORT", "9042"));
  static final String DATACENTER = System.getenv().getOrDefault("PARTITA_DC", "datacenter1");
  static final String KEYSPACE = "java_suite";

  private static CqlSession shared;

  private Env() {}

  /**
   * The driver's defaults but for its timeouts (2 s per request, 5 s to connect): the suite runs
   * beside others on a loaded 2-core machine, where a healthy node can take longer than that.
   */
  static CqlSessionBuilder builder() {
    return CqlSession.builder()
        .withConfigLoader(patientConfig().build())
        .addContactPoint(new InetSocketAddress(HOST, PORT))
        .withLocalDatacenter(DATACENTER);
  }

  /** The configuration of builder(), for callers that add options (credentials, TLS). */
  static ProgrammaticDriverConfigLoaderBuilder patientConfig() {
    Duration patience = Duration.ofSeconds(30);
    return DriverConfigLoader.programmaticBuilder()
        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, patience)
        .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, patience)
        .withDuration(DefaultDriverOption.CONNECTION_CONNECT_TIMEOUT, patience)
        .withDuration(DefaultDriverOption.CONNECTION_SET_KEYSPACE_TIMEOUT, patience)
        .withDuration(DefaultDriverOption.CONTROL_CONNECTION_TIMEOUT, patience)
        .withDuration(DefaultDriverOption.METADATA_SCHEMA_REQUEST_TIMEOUT, patience)
        .withDuration(DefaultDriverOption.CONTROL_CONNECTION_AGREEMENT_TIMEOUT, patience);
  }

  /** The suite's shared session, switched to KEYSPACE. */
  static synchronized CqlSession session() {
    if (shared == null) {
      CqlSession s = builder().build();
      s.execute("DROP KEYSPACE IF EXISTS " + KEYSPACE);
      s.execute(
          "CREATE KEYSPACE " + KEYSPACE
              + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
      s.execute("USE " + KEYSPACE);
      shared = s;
      Runtime.getRuntime().addShutdownHook(new Thread(s::close));
    }
    return shared;
  }

  /** Polls until the condition holds or the timeout passes; returns the last result. */
  static boolean waitFor(java.util.function.BooleanSupplier condition, long timeoutMillis)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
    while (true) {
      if (condition.getAsBoolean()) {
        return true;
      }
      if (System.nanoTime() >= deadline) {
        return false;
      }
      Thread.sleep(50);
    }
  }
}
