// pgjdbc calls whose results test/clients-twins.test.ts compares between PostgreSQL 15 and the
// gateway: one line "<check>: <result>" per call, an error as its SQLSTATE.
// Usage: java -cp <dir>:/usr/share/java/postgresql.jar JdbcTwins HOST PORT DB USER
import java.sql.*;
import java.util.*;

public class JdbcTwins {
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

  static List<String> rows(ResultSet rs) throws SQLException {
    List<String> out = new ArrayList<>();
    int n = rs.getMetaData().getColumnCount();
    while (rs.next()) {
      StringBuilder b = new StringBuilder("(");
      for (int i = 1; i <= n; i++) b.append(i > 1 ? ", " : "").append(rs.getString(i));
      out.add(b.append(")").toString());
    }
    rs.close();
    return out;
  }

  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.setProperty("user", args[3]);
    props.setProperty("sslmode", "disable");
    try (Connection conn = DriverManager.getConnection("jdbc:postgresql://" + args[0] + ":" + args[1] + "/" + args[2], props)) {
      show("setDate on a date column", () -> {
        try (PreparedStatement ps = conn.prepareStatement("select customer_id, signup from sales.customers where signup >= ? order by customer_id limit 3")) {
          ps.setDate(1, java.sql.Date.valueOf("2023-06-01"));
          return rows(ps.executeQuery());
        }
      });
      show("setDate with a Calendar, equality", () -> {
        try (PreparedStatement ps = conn.prepareStatement("select count(*) from sales.customers where signup = ?")) {
          ps.setDate(1, java.sql.Date.valueOf("2023-06-15"), Calendar.getInstance(TimeZone.getTimeZone("UTC")));
          return rows(ps.executeQuery());
        }
      });
      show("setTimestamp on a date column", () -> {
        try (PreparedStatement ps = conn.prepareStatement("select count(*) from sales.customers where signup < ?")) {
          ps.setTimestamp(1, java.sql.Timestamp.valueOf("2023-06-01 10:30:00"));
          return rows(ps.executeQuery());
        }
      });
      show("setObject(LocalDate) on a date column", () -> {
        try (PreparedStatement ps = conn.prepareStatement("select count(*) from sales.customers where signup <= ?")) {
          ps.setObject(1, java.time.LocalDate.of(2023, 6, 1));
          return rows(ps.executeQuery());
        }
      });
      // pg_proc lists only functions that work through the gateway (type I/O functions such as textin are not among them)
      show("getFunctionColumns(split_part)", () -> {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = conn.getMetaData().getFunctionColumns(null, "pg_catalog", "split_part", null)) {
          while (rs.next()) out.add(rs.getString("COLUMN_NAME") + " " + rs.getInt("COLUMN_TYPE") + " " + rs.getString("TYPE_NAME") + " " + rs.getInt("ORDINAL_POSITION") + " " + rs.getString("SPECIFIC_NAME"));
        }
        return out.isEmpty() ? "none" : String.join("; ", out);
      });
      show("getFunctions(abs)", () -> {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = conn.getMetaData().getFunctions(null, "pg_catalog", "abs")) {
          while (rs.next()) out.add(rs.getString("FUNCTION_NAME") + " " + rs.getInt("FUNCTION_TYPE") + " " + rs.getString("SPECIFIC_NAME") + " " + rs.getString("REMARKS"));
        }
        Collections.sort(out);
        return out.isEmpty() ? "none" : String.join("; ", out);
      });
      show("getProcedures(concat_ws)", () -> {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = conn.getMetaData().getProcedures(null, "pg_catalog", "concat_ws")) {
          while (rs.next()) out.add(rs.getString("PROCEDURE_NAME") + " " + rs.getInt("PROCEDURE_TYPE") + " " + rs.getString("SPECIFIC_NAME") + " " + rs.getString("REMARKS"));
        }
        return out.isEmpty() ? "none" : String.join("; ", out);
      });
      // DBeaver asks at connect; pgjdbc compares pg_get_keywords() with SQL:2003's words in one long <> ALL (…)
      show("getSQLKeywords", () -> conn.getMetaData().getSQLKeywords());
      show("declare with hold, then fetch in", () -> {
        try (Statement st = conn.createStatement()) {
          st.execute("declare \"SQL_CUR1\" cursor with hold for select order_id, amount from sales.orders order by order_id");
          List<String> got = new ArrayList<>();
          got.addAll(rows(st.executeQuery("fetch 30 in \"SQL_CUR1\"")));
          got.addAll(rows(st.executeQuery("fetch 30 in \"SQL_CUR1\"")));
          List<String> last = rows(st.executeQuery("fetch 30 in \"SQL_CUR1\""));
          st.execute("close \"SQL_CUR1\"");
          return got.size() + " " + last.size() + " " + got.get(0) + " " + last.get(last.size() - 1);
        }
      });
      show("setFetchSize in a transaction", () -> {
        conn.setAutoCommit(false);
        try (PreparedStatement ps = conn.prepareStatement("select order_id, status from sales.orders where order_id > ? order by order_id")) {
          ps.setFetchSize(9);
          ps.setInt(1, 3);
          List<String> got = rows(ps.executeQuery());
          return got.size() + " " + got.get(0) + " " + got.get(got.size() - 1);
        } finally {
          conn.commit();
          conn.setAutoCommit(true);
        }
      });
    }
    // Simple query mode inlines each parameter as a literal: setDate's is `'2023-06-01 +00'`, of no type.
    props.setProperty("preferQueryMode", "simple");
    try (Connection conn = DriverManager.getConnection("jdbc:postgresql://" + args[0] + ":" + args[1] + "/" + args[2], props)) {
      show("simple mode: setDate on a timestamp column", () -> {
        try (PreparedStatement ps = conn.prepareStatement("select count(*) from sales.orders where ordered_at >= ?")) {
          ps.setDate(1, java.sql.Date.valueOf("2024-01-05"));
          return rows(ps.executeQuery());
        }
      });
      show("simple mode: setDate in BETWEEN and IN on a timestamp column", () -> {
        try (PreparedStatement ps = conn.prepareStatement("select count(*) from sales.orders where ordered_at between ? and ? or ordered_at in (?, ?)")) {
          ps.setDate(1, java.sql.Date.valueOf("2024-01-02"));
          ps.setDate(2, java.sql.Date.valueOf("2024-01-05"));
          ps.setDate(3, java.sql.Date.valueOf("2024-01-01"));
          ps.setDate(4, java.sql.Date.valueOf("2024-01-06"));
          return rows(ps.executeQuery());
        }
      });
      show("simple mode: setDate on a date column", () -> {
        try (PreparedStatement ps = conn.prepareStatement("select count(*) from sales.customers where signup < ?")) {
          ps.setDate(1, java.sql.Date.valueOf("2023-06-01"));
          return rows(ps.executeQuery());
        }
      });
      show("simple mode: setTimestamp on a date column", () -> {
        try (PreparedStatement ps = conn.prepareStatement("select count(*) from sales.customers where signup < ?")) {
          ps.setTimestamp(1, java.sql.Timestamp.valueOf("2023-06-01 10:30:00"));
          return rows(ps.executeQuery());
        }
      });
      show("simple mode: setTimestamp on a timestamp column", () -> {
        try (PreparedStatement ps = conn.prepareStatement("select count(*) from sales.orders where ordered_at between ? and ?")) {
          ps.setTimestamp(1, java.sql.Timestamp.valueOf("2024-01-01 12:00:00"));
          ps.setTimestamp(2, java.sql.Timestamp.valueOf("2024-01-03 10:30:00.5"));
          return rows(ps.executeQuery());
        }
      });
    }
  }
}
