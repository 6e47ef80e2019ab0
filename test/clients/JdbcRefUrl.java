// pgjdbc: a ref chosen in the JDBC URL's database part (`basic~v1`). Prints the session's
// current_database() and the row count of the table named on the command line.
// Usage: java -cp <dir>:/usr/share/java/postgresql.jar JdbcRefUrl URL TABLE
import java.sql.*;

public class JdbcRefUrl {
  public static void main(String[] args) throws Exception {
    DriverManager.setLoginTimeout(10);
    try (Connection c = DriverManager.getConnection(args[0], "me", "");
         ResultSet rs = c.createStatement().executeQuery("select current_database(), count(*) from " + args[1])) {
      rs.next();
      System.out.println(rs.getString(1) + " " + rs.getLong(2));
    }
  }
}
