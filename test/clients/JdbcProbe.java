// pgjdbc (Debian libpostgresql-jdbc-java) against fdl-gateway. Compiled and run by
// test/clients-jdbc.test.ts; prints "ok <check>" per passed check, exits 1 on the first failure.
// Usage: java -cp <dir>:/usr/share/java/postgresql.jar JdbcProbe HOST PORT DB
import java.math.BigDecimal;
import java.sql.*;
import java.util.*;
import java.util.concurrent.*;

public class JdbcProbe {
  static final String LONG_QUERY = "select count(*) from range(100000000000) t(i) where i % 7 = 3";

  interface Check { void run() throws Exception; }

  static void check(String name, Check c) {
    try {
      c.run();
    } catch (Throwable t) {
      System.err.println("FAILED " + name);
      t.printStackTrace();
      System.out.flush();
      System.exit(1);
    }
    System.out.println("ok " + name);
    System.out.flush();
  }

  static void expect(boolean cond, String what) {
    if (!cond) throw new AssertionError(what);
  }

  static Connection conn;

  public static void main(String[] args) throws Exception {
    String url = "jdbc:postgresql://" + args[0] + ":" + args[1] + "/" + args[2];
    Properties props = new Properties();
    props.setProperty("user", "probe");
    props.setProperty("prepareThreshold", "5");
    props.setProperty("connectTimeout", "10");
    props.setProperty("socketTimeout", "60");
    props.setProperty("sslmode", "prefer");
    props.setProperty("ApplicationName", "jdbc-probe");
    // watchdog: never hang the suite
    Thread wd = new Thread(() -> {
      try { Thread.sleep(90_000); } catch (InterruptedException e) { return; }
      System.err.println("probe watchdog: gave up");
      Runtime.getRuntime().halt(3);
    });
    wd.setDaemon(true);
    wd.start();

    check("connect", () -> {
      conn = DriverManager.getConnection(url, props);
      DatabaseMetaData md = conn.getMetaData();
      expect(md.getDatabaseMajorVersion() >= 15, "server version " + md.getDatabaseProductVersion());
      expect(md.getDatabaseProductName().equals("PostgreSQL"), md.getDatabaseProductName());
    });

    check("simple query", () -> {
      try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery("select count(*) from sales.orders")) {
        expect(rs.next() && rs.getLong(1) == 69, "orders count");
      }
    });

    check("parameters int text numeric timestamp", () -> {
      try (PreparedStatement ps = conn.prepareStatement(
          "select ?::integer + 1, ? || 'x', ?::numeric(10,2) * 2, ?::timestamp + interval '1 day'")) {
        ps.setInt(1, 41);
        ps.setString(2, "ab");
        ps.setBigDecimal(3, new BigDecimal("12.50"));
        ps.setTimestamp(4, Timestamp.valueOf("2024-01-02 03:04:05.123456"));
        try (ResultSet rs = ps.executeQuery()) {
          expect(rs.next(), "row");
          expect(rs.getInt(1) == 42, "int " + rs.getInt(1));
          expect(rs.getString(2).equals("abx"), "text " + rs.getString(2));
          expect(rs.getBigDecimal(3).compareTo(new BigDecimal("25.00")) == 0, "numeric " + rs.getBigDecimal(3));
          expect(rs.getTimestamp(4).equals(Timestamp.valueOf("2024-01-03 03:04:05.123456")), "timestamp " + rs.getTimestamp(4));
        }
      }
    });

    check("prepareThreshold reuse with binary int params", () -> {
      // from the 5th execution pgjdbc switches to a named server statement (S_n), binds int4 in
      // binary and no longer sends Describe: the gateway must remember the statement's row shape.
      try (PreparedStatement ps = conn.prepareStatement(
          "select order_id, amount, status, ordered_at from sales.orders where customer_id = ? and order_id > ? order by order_id")) {
        org.postgresql.PGStatement pgs = ps.unwrap(org.postgresql.PGStatement.class);
        for (int i = 0; i < 8; i++) {
          ps.setInt(1, 1 + (i % 3));
          ps.setLong(2, 0L);
          int n = 0;
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              n++;
              expect(rs.getLong(1) > 0 && rs.getBigDecimal(2) != null && rs.getString(3) != null && rs.getTimestamp(4) != null, "row values");
            }
          }
          expect(n > 0, "rows at iteration " + i);
          if (i >= 5) expect(pgs.isUseServerPrepare(), "server-prepared after threshold at iteration " + i);
        }
      }
    });

    check("100000 rows streamed with setFetchSize(100) in a transaction", () -> {
      conn.setAutoCommit(false);
      try (PreparedStatement ps = conn.prepareStatement("select i, i::varchar as s from range(100000) t(i)")) {
        ps.setFetchSize(100); // named portal C_n, Execute(100) + Sync repeated: the portal must survive Sync
        long n = 0;
        String last = null;
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            n++;
            last = rs.getString(2);
          }
        }
        expect(n == 100000 && "99999".equals(last), n + " rows, last " + last);
      }
      conn.commit();
      conn.setAutoCommit(true);
    });

    check("N+1 loop: another query while a setFetchSize ResultSet is open, two open at once", () -> {
      conn.setAutoCommit(false);
      try (PreparedStatement outer = conn.prepareStatement("select i from range(1000) t(i) order by i");
          PreparedStatement inner = conn.prepareStatement("select ?::int * 2");
          PreparedStatement other = conn.prepareStatement("select i from range(500) t(i) order by i")) {
        outer.setFetchSize(3);
        other.setFetchSize(7);
        long sum = 0, n = 0, otherSum = 0;
        try (ResultSet rs = outer.executeQuery(); ResultSet rs2 = other.executeQuery()) {
          while (rs.next()) {
            inner.setInt(1, rs.getInt(1));
            try (ResultSet one = inner.executeQuery()) {
              one.next();
              sum += one.getLong(1);
            }
            if (rs2.next()) otherSum += rs2.getLong(1);
            n++;
          }
        }
        expect(n == 1000 && sum == 999000 && otherSum == 124750, n + " rows, sum " + sum + ", other " + otherSum);
      }
      conn.commit();
      conn.setAutoCommit(true);
    });

    check("cancel long query 57014", () -> {
      try (Statement st = conn.createStatement()) {
        ScheduledExecutorService ex = Executors.newSingleThreadScheduledExecutor();
        ex.schedule(() -> { try { st.cancel(); } catch (SQLException e) { } }, 300, TimeUnit.MILLISECONDS);
        long t0 = System.nanoTime();
        try {
          st.executeQuery(LONG_QUERY);
          throw new AssertionError("not cancelled");
        } catch (SQLException e) {
          expect("57014".equals(e.getSQLState()), "sqlstate " + e.getSQLState() + ": " + e.getMessage());
        } finally {
          ex.shutdownNow();
        }
        expect(System.nanoTime() - t0 < 10_000_000_000L, "quick");
        try (ResultSet rs = st.executeQuery("select 1")) {
          expect(rs.next() && rs.getInt(1) == 1, "usable after cancel");
        }
      }
    });

    check("error then recovery", () -> {
      conn.setAutoCommit(false);
      try (Statement st = conn.createStatement()) {
        try {
          st.executeQuery("select * from sales.nope");
          throw new AssertionError("no error");
        } catch (SQLException e) {
          expect("42P01".equals(e.getSQLState()), e.getSQLState());
        }
        try {
          st.executeQuery("select 1");
          throw new AssertionError("no 25P02");
        } catch (SQLException e) {
          expect("25P02".equals(e.getSQLState()), e.getSQLState());
        }
        conn.rollback();
        try (ResultSet rs = st.executeQuery("select max(order_id) from sales.orders")) {
          expect(rs.next() && rs.getLong(1) == 80, "recovered");
        }
        conn.commit();
      }
      conn.setAutoCommit(true);
    });

    check("DatabaseMetaData getSchemas", () -> {
      List<String> schemas = new ArrayList<>();
      try (ResultSet rs = conn.getMetaData().getSchemas()) {
        while (rs.next()) schemas.add(rs.getString("TABLE_SCHEM"));
      }
      expect(schemas.contains("sales") && schemas.contains("main"), "schemas " + schemas);
    });

    check("DatabaseMetaData getTables", () -> {
      List<String> tables = new ArrayList<>();
      try (ResultSet rs = conn.getMetaData().getTables(null, "sales", "%", new String[] {"TABLE"})) {
        while (rs.next()) {
          tables.add(rs.getString("TABLE_NAME"));
          expect("TABLE".equals(rs.getString("TABLE_TYPE")), "type " + rs.getString("TABLE_TYPE"));
          if (rs.getString("TABLE_NAME").equals("orders")) expect("Orders (DuckLake table comment)".equals(rs.getString("REMARKS")), "remarks " + rs.getString("REMARKS"));
        }
      }
      Collections.sort(tables);
      expect(tables.equals(Arrays.asList("customers", "orders")), "tables " + tables);
      // an escaped underscore in the pattern (all\_types) matches literally
      int n = 0;
      try (ResultSet rs = conn.getMetaData().getTables(null, "main", "all\\_types", null)) {
        while (rs.next()) n++;
      }
      expect(n == 1, "all\\_types matched " + n);
    });

    check("DatabaseMetaData getColumns with JDBC types", () -> {
      Map<String, String> typeNames = new LinkedHashMap<>();
      Map<String, Integer> codes = new HashMap<>();
      Map<String, Integer> sizes = new HashMap<>();
      Map<String, Integer> digits = new HashMap<>();
      try (ResultSet rs = conn.getMetaData().getColumns(null, "sales", "orders", "%")) {
        while (rs.next()) {
          String c = rs.getString("COLUMN_NAME");
          typeNames.put(c, rs.getString("TYPE_NAME"));
          codes.put(c, rs.getInt("DATA_TYPE"));
          sizes.put(c, rs.getInt("COLUMN_SIZE"));
          digits.put(c, rs.getInt("DECIMAL_DIGITS"));
          expect(rs.getInt("ORDINAL_POSITION") == typeNames.size(), "ordinal of " + c);
        }
      }
      expect(new ArrayList<>(typeNames.keySet()).equals(Arrays.asList("order_id", "customer_id", "amount", "qty", "ordered_at", "status")), "columns " + typeNames);
      expect("int8".equals(typeNames.get("order_id")) && codes.get("order_id") == Types.BIGINT, "order_id " + typeNames + codes);
      expect("int4".equals(typeNames.get("customer_id")) && codes.get("customer_id") == Types.INTEGER, "customer_id " + typeNames + codes);
      expect("numeric".equals(typeNames.get("amount")) && codes.get("amount") == Types.NUMERIC, "amount " + typeNames + codes);
      expect(sizes.get("amount") == 12 && digits.get("amount") == 2, "numeric(12,2) " + sizes + digits);
      expect("int2".equals(typeNames.get("qty")) && codes.get("qty") == Types.SMALLINT, "qty " + typeNames + codes);
      expect("timestamp".equals(typeNames.get("ordered_at")) && codes.get("ordered_at") == Types.TIMESTAMP, "ordered_at " + typeNames + codes);
      expect("text".equals(typeNames.get("status")) && codes.get("status") == Types.VARCHAR, "status " + typeNames + codes);
      Map<String, Integer> at = new HashMap<>();
      try (ResultSet rs = conn.getMetaData().getColumns(null, "main", "all_types", "%")) {
        while (rs.next()) at.put(rs.getString("COLUMN_NAME"), rs.getInt("DATA_TYPE"));
      }
      expect(at.get("b") == Types.BIT && at.get("f64") == Types.DOUBLE && at.get("f32") == Types.REAL, "all_types " + at);
      expect(at.get("dt") == Types.DATE && at.get("tm") == Types.TIME && at.get("bl") == Types.BINARY, "all_types " + at);
      expect(at.get("tstz") == Types.TIMESTAMP && at.get("u") == Types.OTHER, "all_types " + at);
    });

    check("DatabaseMetaData getPrimaryKeys", () -> {
      try (ResultSet rs = conn.getMetaData().getPrimaryKeys(null, "sales", "orders")) {
        expect(!rs.next(), "no primary keys");
      }
      try (ResultSet rs = conn.getMetaData().getIndexInfo(null, "sales", "orders", false, true)) {
        expect(!rs.next(), "no indexes");
      }
    });

    check("DatabaseMetaData getTypeInfo", () -> {
      Map<String, Integer> types = new HashMap<>();
      try (ResultSet rs = conn.getMetaData().getTypeInfo()) {
        while (rs.next()) types.put(rs.getString("TYPE_NAME"), rs.getInt("DATA_TYPE"));
      }
      expect(types.get("int4") == Types.INTEGER && types.get("int8") == Types.BIGINT && types.get("text") == Types.VARCHAR, "typeinfo " + types);
      expect(types.get("numeric") == Types.NUMERIC && types.get("timestamptz") == Types.TIMESTAMP && types.get("bool") == Types.BIT, "typeinfo " + types);
    });

    check("ResultSetMetaData", () -> {
      try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery("select order_id, amount, status from sales.orders limit 1")) {
        ResultSetMetaData m = rs.getMetaData();
        expect(m.getColumnType(1) == Types.BIGINT && m.getColumnType(2) == Types.NUMERIC && m.getColumnType(3) == Types.VARCHAR, "types");
        expect(m.getPrecision(2) == 12 && m.getScale(2) == 2, "numeric(12,2) " + m.getPrecision(2) + "," + m.getScale(2));
        expect("orders".equals(m.getTableName(1)) || "".equals(m.getTableName(1)), "table name " + m.getTableName(1));
      }
    });

    conn.close();
    System.out.println("ok done");
    System.exit(0);
  }
}
