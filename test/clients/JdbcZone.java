// pgjdbc in a JVM whose default zone is a fixed offset (java -Duser.timezone=GMT+05:30): pgjdbc sends
// the startup parameter TimeZone=GMT-05:30, POSIX's sign. test/clients-twins.test.ts compares the lines
// "<check>: <result>" between PostgreSQL 15 and the gateway; an error prints as its SQLSTATE.
// Usage: java -Duser.timezone=<zone> -cp <dir>:/usr/share/java/postgresql.jar JdbcZone HOST PORT DB USER
import java.sql.*;
import java.time.OffsetDateTime;
import java.util.*;

public class JdbcZone {
  interface Call { Object run() throws Exception; }

  static void show(String name, Call c) {
    String out;
    try {
      out = String.valueOf(c.run());
    } catch (SQLException e) {
      System.err.println("# " + name + ": " + e);
      out = "ERROR " + e.getSQLState();
    } catch (Exception e) {
      System.err.println("# " + name + ": " + e);
      out = "ERROR " + e.getClass().getSimpleName();
    }
    System.out.println(name + ": " + out);
    System.out.flush();
  }

  /** Each row's columns as getString, getTimestamp's instant and getObject(OffsetDateTime) read them. */
  static List<String> rows(ResultSet rs) throws SQLException {
    List<String> out = new ArrayList<>();
    int n = rs.getMetaData().getColumnCount();
    while (rs.next()) {
      StringBuilder b = new StringBuilder("(");
      for (int i = 1; i <= n; i++) {
        b.append(i > 1 ? "; " : "").append(rs.getString(i));
        if (rs.getMetaData().getColumnType(i) == Types.TIMESTAMP) {
          Timestamp t = rs.getTimestamp(i);
          b.append(" | ").append(t == null ? null : t.toInstant());
          b.append(" | ").append(rs.getObject(i, OffsetDateTime.class));
        }
      }
      out.add(b.append(")").toString());
    }
    rs.close();
    return out;
  }

  static List<String> query(Connection conn, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = conn.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) ps.setObject(i + 1, params[i]);
      return rows(ps.executeQuery());
    }
  }

  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.setProperty("user", args[3]);
    props.setProperty("sslmode", "disable");
    show("JVM zone", () -> TimeZone.getDefault().getID());
    try (Connection conn = DriverManager.getConnection("jdbc:postgresql://" + args[0] + ":" + args[1] + "/" + args[2], props)) {
      show("connect, SHOW TimeZone", () -> query(conn, "show timezone"));
      show("timestamptz constants", () -> query(conn,
          "select timestamptz '2024-07-01 12:00+00', timestamptz '2024-01-01 23:45:30.5+00', timestamptz '1999-12-31 22:00-03'"));
      show("timestamptz of a table", () -> query(conn,
          "select order_id, ordered_at from sales.orders order by order_id limit 5"));
      show("setTimestamp parameter", () -> query(conn, "select ?::timestamptz",
          Timestamp.valueOf("2024-03-10 08:15:00")));
      show("setObject(OffsetDateTime) parameter", () -> query(conn, "select ?::timestamptz",
          OffsetDateTime.parse("2024-03-10T08:15:00+02:00")));
      show("a literal without an offset, and its date", () -> query(conn,
          "select timestamptz '2024-03-10 08:15', (timestamptz '2024-03-10 20:00+00')::date, (timestamptz '2024-03-10 20:00+00')::timestamp"));
      for (int i = 0; i < 6; i++) {
        final int n = i;
        // prepareThreshold: the fifth run is a named statement, its timestamptz in binary.
        show("prepared run " + n, () -> query(conn, "select ordered_at from sales.orders where order_id = ?", 1 + n));
      }
    }
  }
}
