// TemporalOracle parses literals with Apache Cassandra's own types, for
// TestTemporalOracle (temporal_oracle_test.go). It reads lines
// "<kind> TAB <hex of the UTF-8 literal>", kind ts, dt, tm or du, and
// answers each with one line: "ok TAB <value>" (milliseconds, the date's
// unsigned day number, nanoseconds, or "months days nanoseconds"; "empty"
// for an empty value) or "err TAB <exception class> TAB <hex of the
// message>".
// Run it with Cassandra's jars on the class path (java -cp ... this file).

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.apache.cassandra.cql3.Duration;
import org.apache.cassandra.db.marshal.DurationType;
import org.apache.cassandra.db.marshal.SimpleDateType;
import org.apache.cassandra.db.marshal.TimeType;
import org.apache.cassandra.db.marshal.TimestampType;

public class TemporalOracle {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new BufferedOutputStream(System.out, 1 << 16), false, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            int tab = line.indexOf('\t');
            String literal = new String(unhex(line.substring(tab + 1)), StandardCharsets.UTF_8);
            try {
                out.println("ok\t" + parse(line.substring(0, tab), literal));
            } catch (Throwable e) {
                out.println("err\t" + e.getClass().getName() + "\t" + hex(String.valueOf(e.getMessage())));
            }
            if (!in.ready())
                out.flush();
        }
        out.flush();
    }

    private static String parse(String kind, String literal) {
        switch (kind) {
            case "ts": {
                ByteBuffer b = TimestampType.instance.fromString(literal);
                return b.remaining() == 0 ? "empty" : Long.toString(b.getLong(b.position()));
            }
            case "dt": {
                ByteBuffer b = SimpleDateType.instance.fromString(literal);
                return Long.toString(b.getInt(b.position()) & 0xffffffffL);
            }
            case "tm": {
                ByteBuffer b = TimeType.instance.fromString(literal);
                return Long.toString(b.getLong(b.position()));
            }
            case "du": {
                ByteBuffer b = DurationType.instance.fromString(literal);
                if (b.remaining() == 0)
                    return "empty";
                Duration d = DurationType.instance.compose(b);
                return d.getMonths() + " " + d.getDays() + " " + d.getNanoseconds();
            }
        }
        throw new IllegalArgumentException("unknown kind " + kind);
    }

    private static String hex(String s) {
        StringBuilder b = new StringBuilder();
        for (byte x : s.getBytes(StandardCharsets.UTF_8))
            b.append(String.format("%02x", x));
        return b.toString();
    }

    private static byte[] unhex(String hex) {
        byte[] b = new byte[hex.length() / 2];
        for (int i = 0; i < b.length; i++)
            b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        return b;
    }
}
