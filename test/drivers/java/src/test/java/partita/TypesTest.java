package partita;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.data.CqlDuration;
import com.datastax.oss.driver.api.core.data.TupleValue;
import com.datastax.oss.driver.api.core.data.UdtValue;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.type.DataTypes;
import com.datastax.oss.driver.api.core.type.TupleType;
import com.datastax.oss.driver.api.core.type.UserDefinedType;
import com.datastax.oss.driver.api.core.type.reflect.GenericType;
import com.datastax.oss.driver.api.core.uuid.Uuids;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every CQL type round-trips through prepared statements, and null. */
class TypesTest {
  static CqlSession s;

  /** Column name, CQL type, a typical value, an extreme value. */
  static final Object[][] COLUMNS = {
    {"c_ascii", "ascii", "plain ascii ~!", ""},
    {"c_text", "text", "text: \u4e2d\u6587, \u00e9moji \ud83c\udf89", ""},
    {"c_int", "int", 123456, Integer.MIN_VALUE},
    {"c_bigint", "bigint", 1234567890123L, Long.MAX_VALUE},
    {"c_smallint", "smallint", (short) -1234, Short.MAX_VALUE},
    {"c_tinyint", "tinyint", (byte) 42, Byte.MIN_VALUE},
    {"c_varint", "varint", new BigInteger("12345678901234567890123456789"),
        BigInteger.TWO.pow(200).negate().add(BigInteger.ONE)},
    {"c_decimal", "decimal", new BigDecimal("-12345.678901234567890"), new BigDecimal("1E-30")},
    {"c_float", "float", 1.5f, Float.NEGATIVE_INFINITY},
    {"c_double", "double", Math.PI, -Double.MAX_VALUE},
    {"c_boolean", "boolean", true, false},
    {"c_uuid", "uuid", UUID.fromString("5d8b7a62-0d64-4b1c-9a8e-2f1b7f2a9c01"), new UUID(0, 0)},
    {"c_timeuuid", "timeuuid", Uuids.startOf(1741428900000L), Uuids.endOf(1000L)},
    {"c_timestamp", "timestamp", Instant.parse("2026-01-20T06:00:00.123Z"),
        Instant.parse("1900-01-01T00:00:00Z")},
    {"c_date", "date", LocalDate.of(2026, 1, 20), LocalDate.of(1, 1, 1)},
    {"c_time", "time", LocalTime.of(23, 59, 58, 999999000), LocalTime.MIDNIGHT},
    {"c_duration", "duration", CqlDuration.newInstance(14, 3, 4L * 3600 * 1_000_000_000L + 5),
        CqlDuration.newInstance(-1, -2, -3)},
    {"c_blob", "blob", ByteBuffer.wrap(new byte[] {0, 1, (byte) 0xfe, (byte) 0xff}),
        ByteBuffer.allocate(0)},
    {"c_inet", "inet", inet("192.0.2.10"), inet("2001:db8::1")},
  };

  static InetAddress inet(String s) {
    try {
      return InetAddress.getByName(s);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalArgumentException(e);
    }
  }

  @BeforeAll
  static void setUp() {
    s = Env.session();
    StringBuilder ddl = new StringBuilder("CREATE TABLE types_all (k int PRIMARY KEY");
    for (Object[] c : COLUMNS) {
      ddl.append(", ").append(c[0]).append(' ').append(c[1]);
    }
    s.execute(ddl.append(")").toString());
    s.execute("CREATE TYPE types_addr (street text, zip int)");
    s.execute(
        "CREATE TABLE types_nested (k int PRIMARY KEY, l list<int>, st set<text>,"
            + " m map<text, bigint>, fm frozen<map<int, frozen<list<text>>>>,"
            + " tup tuple<int, text, double>, addr types_addr, addrs list<frozen<types_addr>>)");
  }

  static void roundTrip(int key, int valueIndex) {
    StringBuilder insert = new StringBuilder("INSERT INTO types_all (k");
    StringBuilder marks = new StringBuilder("?");
    for (Object[] c : COLUMNS) {
      insert.append(", ").append(c[0]);
      marks.append(", ?");
    }
    PreparedStatement ps = s.prepare(insert + ") VALUES (" + marks + ")");
    Object[] values = new Object[COLUMNS.length + 1];
    values[0] = key;
    for (int i = 0; i < COLUMNS.length; i++) {
      values[i + 1] = COLUMNS[i][valueIndex];
    }
    s.execute(ps.bind(values));
    Row row = s.execute(s.prepare("SELECT * FROM types_all WHERE k = ?").bind(key)).one();
    assertNotNull(row);
    for (Object[] c : COLUMNS) {
      Object want = c[valueIndex];
      Object got = row.getObject((String) c[0]);
      if (want instanceof ByteBuffer) {
        assertEquals(((ByteBuffer) want).duplicate().rewind(), got, (String) c[0]);
      } else {
        assertEquals(want, got, (String) c[0]);
      }
    }
  }

  @Test
  void typicalValues() {
    roundTrip(1, 2);
  }

  @Test
  void extremeValues() {
    roundTrip(2, 3);
  }

  @Test
  void nullAndUnset() {
    PreparedStatement ps = s.prepare("INSERT INTO types_all (k, c_text, c_int) VALUES (?, ?, ?)");
    s.execute(ps.bind(3, "kept", 7));
    // An unset marker leaves the cell as it is; an explicit null deletes it.
    BoundStatement partial = ps.bind().setInt(0, 3).setToNull(1);
    s.execute(partial);
    Row row = s.execute("SELECT c_text, c_int, c_double FROM types_all WHERE k = 3").one();
    assertNull(row.getString("c_text"));
    assertEquals(7, row.getInt("c_int"));
    assertNull(row.getObject("c_double"));
  }

  @Test
  void collectionsTuplesAndUdts() {
    UserDefinedType addrType =
        s.getMetadata().getKeyspace(Env.KEYSPACE).orElseThrow().getUserDefinedType("types_addr").orElseThrow();
    UdtValue addr = addrType.newValue().setString("street", "Main St").setInt("zip", 12345);
    UdtValue other = addrType.newValue().setString("street", null).setInt("zip", 1);
    TupleType tupType = DataTypes.tupleOf(DataTypes.INT, DataTypes.TEXT, DataTypes.DOUBLE);
    TupleValue tup = tupType.newValue(7, "seven", 7.5);
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("a", 1L);
    m.put("b", Long.MIN_VALUE);
    Map<Integer, List<String>> fm = Map.of(1, List.of("x", "y"), 2, List.of());
    PreparedStatement ps =
        s.prepare(
            "INSERT INTO types_nested (k, l, st, m, fm, tup, addr, addrs) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    s.execute(ps.bind(1, List.of(3, 1, 2), Set.of("b", "a"), m, fm, tup, addr, List.of(addr, other)));
    Row row = s.execute("SELECT * FROM types_nested WHERE k = 1").one();
    assertEquals(List.of(3, 1, 2), row.getList("l", Integer.class));
    assertEquals(List.of("a", "b"), List.copyOf(row.getSet("st", String.class)));
    assertEquals(m, row.getMap("m", String.class, Long.class));
    assertEquals(
        Map.of(1, List.of("x", "y"), 2, List.of()),
        row.get("fm", GenericType.mapOf(GenericType.INTEGER, GenericType.listOf(GenericType.STRING))));
    assertEquals(tup, row.getTupleValue("tup"));
    assertEquals(addr, row.getUdtValue("addr"));
    assertEquals(List.of(addr, other), row.getList("addrs", UdtValue.class));

    // Element operations through bound values.
    s.execute(s.prepare("UPDATE types_nested SET l = l + ?, m[?] = ? WHERE k = 1").bind(List.of(9), "c", 3L));
    s.execute(s.prepare("UPDATE types_nested SET st = st - ? WHERE k = 1").bind(Set.of("a")));
    row = s.execute("SELECT l, st, m FROM types_nested WHERE k = 1").one();
    assertEquals(List.of(3, 1, 2, 9), row.getList("l", Integer.class));
    assertEquals(Set.of("b"), row.getSet("st", String.class));
    assertEquals(3L, row.getMap("m", String.class, Long.class).get("c"));
  }
}
