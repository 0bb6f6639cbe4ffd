package partita;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.AllNodesFailedException;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.ProgrammaticDriverConfigLoaderBuilder;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Connecting over TLS through the driver's DefaultSslEngineFactory to a node with
 * client_encryption_options enabled and require_client_auth. test/e2e TestJavaAuthTLS makes the
 * certificates at run time and names the PEM files in PARTITA_TLS_CA (the CA of the node and of
 * the client), PARTITA_TLS_OTHER_CA (one that signed nothing), PARTITA_TLS_CERT and
 * PARTITA_TLS_KEY (the client's); this class turns them into the PKCS12 stores the driver reads.
 * Not named *Test, so the plain-node suite leaves it out.
 */
class TlsCheck {
  static final String HOST = System.getenv().getOrDefault("PARTITA_TLS_HOST", "127.0.0.1");
  static final int PORT = Integer.parseInt(System.getenv().getOrDefault("PARTITA_TLS_PORT", "9142"));
  static final String PASSWORD = "store password";

  static Path truststore, otherTruststore, keystore;

  @BeforeAll
  static void makeStores() throws Exception {
    Path dir = Files.createTempDirectory("partita-tls");
    dir.toFile().deleteOnExit();
    truststore = store(dir.resolve("trust.p12"), ks -> ks.setCertificateEntry("ca", cert(env("PARTITA_TLS_CA"))));
    otherTruststore =
        store(dir.resolve("other-trust.p12"), ks -> ks.setCertificateEntry("ca", cert(env("PARTITA_TLS_OTHER_CA"))));
    keystore =
        store(
            dir.resolve("client.p12"),
            ks ->
                ks.setKeyEntry(
                    "client",
                    key(env("PARTITA_TLS_KEY")),
                    PASSWORD.toCharArray(),
                    new Certificate[] {cert(env("PARTITA_TLS_CERT"))}));
  }

  static String env(String name) {
    String v = System.getenv(name);
    if (v == null || v.isEmpty()) {
      throw new IllegalStateException(name + " is not set (test/e2e TestJavaAuthTLS sets it)");
    }
    return v;
  }

  interface Filler {
    void fill(KeyStore ks) throws Exception;
  }

  /** Writes a PKCS12 store that fill populates, protected by PASSWORD. */
  static Path store(Path path, Filler fill) throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, PASSWORD.toCharArray());
    fill.fill(ks);
    try (OutputStream out = Files.newOutputStream(path)) {
      ks.store(out, PASSWORD.toCharArray());
    }
    return path;
  }

  static Certificate cert(String pemPath) throws Exception {
    try (InputStream in = Files.newInputStream(Path.of(pemPath))) {
      return CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  /** Reads a PKCS#8 "PRIVATE KEY" PEM file holding an EC key. */
  static PrivateKey key(String pemPath) throws Exception {
    String pem = Files.readString(Path.of(pemPath));
    String body =
        pem.replace("-----BEGIN PRIVATE KEY-----", "")
            .replace("-----END PRIVATE KEY-----", "")
            .replaceAll("\\s", "");
    return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
  }

  /** A session to the TLS node with the given stores (null: that store not configured). */
  static CqlSession connect(Path trust, Path keys) {
    ProgrammaticDriverConfigLoaderBuilder config = Env.patientConfig();
    if (trust != null) {
      config =
          config
              .withString(DefaultDriverOption.SSL_ENGINE_FACTORY_CLASS, "DefaultSslEngineFactory")
              .withString(DefaultDriverOption.SSL_TRUSTSTORE_PATH, trust.toString())
              .withString(DefaultDriverOption.SSL_TRUSTSTORE_PASSWORD, PASSWORD)
              // The driver checks the node's certificate against the name the contact point
              // resolves back to (localhost), which the certificate holds.
              .withBoolean(DefaultDriverOption.SSL_HOSTNAME_VALIDATION, true);
    }
    if (keys != null) {
      config =
          config
              .withString(DefaultDriverOption.SSL_KEYSTORE_PATH, keys.toString())
              .withString(DefaultDriverOption.SSL_KEYSTORE_PASSWORD, PASSWORD);
    }
    return CqlSession.builder()
        .withConfigLoader(config.build())
        .addContactPoint(new InetSocketAddress(HOST, PORT))
        .withLocalDatacenter(Env.DATACENTER)
        .build();
  }

  @Test
  void clientCertificateConnects() {
    try (CqlSession s = connect(truststore, keystore)) {
      String version = s.execute("SELECT release_version FROM system.local").one().getString("release_version");
      assertTrue(version.matches("\\d+\\.\\d+.*"), version);
      PreparedStatement p = s.prepare("SELECT key FROM system.local WHERE key = ?");
      assertEquals("local", s.execute(p.bind("local")).one().getString("key"));
    }
  }

  /** The messages of the causes of the one node's error of a failed connect, outermost first. */
  static String causes(AllNodesFailedException e) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = AuthCheck.nodeError(e); t != null; t = t.getCause()) {
      b.append(t.getClass().getName()).append(": ").append(t.getMessage()).append("\n");
    }
    return b.toString();
  }

  @Test
  void noClientCertificateIsRefused() {
    String why = causes(assertThrows(AllNodesFailedException.class, () -> connect(truststore, null).close()));
    // The node asks for a certificate and ends the handshake without one (TLS alert 116).
    assertTrue(why.contains("certificate_required"), why);
  }

  @Test
  void untrustedNodeIsRefused() {
    String why = causes(assertThrows(AllNodesFailedException.class, () -> connect(otherTruststore, keystore).close()));
    // The driver finds no path from the node's certificate to a CA it trusts.
    assertTrue(why.contains("PKIX path building failed"), why);
  }

  @Test
  void plainTextIsRefused() {
    String why = causes(assertThrows(AllNodesFailedException.class, () -> connect(null, null).close()));
    // The node resets a connection whose first bytes are not a TLS handshake, as Cassandra does.
    assertTrue(why.contains("java.net.SocketException: Connection reset"), why);
  }
}
