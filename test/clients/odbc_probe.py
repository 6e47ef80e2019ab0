"""psqlODBC (Unicode driver, odbc-postgresql) through pyodbc in manual-commit mode: statement-level
SAVEPOINT/RELEASE/ROLLBACK TO around every statement, server-side prepare, catalog functions."""
import time

import pyodbc

from _probe import *  # noqa: F401,F403

watchdog(90)
DRIVER = os.environ.get("FDL_ODBC_DRIVER", "/usr/lib/x86_64-linux-gnu/odbc/psqlodbcw.so")

with check("connect"):
    conn = pyodbc.connect(
        f"DRIVER={{{DRIVER}}};SERVER={HOST};PORT={PORT};DATABASE={DB};UID={USER};PWD=;SSLmode=disable;UseServerSidePrepare=1",
        autocommit=False,
        timeout=10,
    )
    expect(conn.getinfo(pyodbc.SQL_DBMS_NAME) == "PostgreSQL", conn.getinfo(pyodbc.SQL_DBMS_NAME))

with check("simple query"):
    cur = conn.cursor()
    cur.execute("select count(*) from sales.orders")
    expect(cur.fetchone()[0] == ORDERS, "orders count")
    conn.rollback()

with check("parameters int text numeric timestamp"):
    cur.execute(
        "select cast(? as integer) + 1, cast(? as text) || 'x', cast(? as numeric(10,2)) * 2, cast(? as timestamp) + interval '1 day'",
        P_INT, P_TEXT, P_NUM, P_TS,
    )
    row = tuple(cur.fetchone())
    expect(row[0] == E_INT and row[1] == E_TEXT and row[2] == E_NUM and row[3] == E_TS, f"row {row!r}")
    conn.rollback()

with check("prepared reuse"):
    for i in range(6):
        cur.execute("select count(*) from sales.orders where customer_id = ?", i + 1)
        expect(isinstance(cur.fetchone()[0], int), f"iteration {i}")
    conn.commit()

with check("tables()"):
    rows = cur.tables(schema="sales", tableType="TABLE").fetchall()
    names = sorted(r.table_name for r in rows)
    expect(names == ["customers", "orders"], f"tables {names}")
    expect(all(r.table_schem == "sales" and r.table_type == "TABLE" for r in rows), repr(rows))
    rows = cur.tables(table="all_types").fetchall()
    expect([(r.table_schem, r.table_name) for r in rows] == [("main", "all_types")], repr(rows))
    conn.rollback()

with check("columns()"):
    rows = cur.columns(table="orders", schema="sales").fetchall()
    cols = [(r.column_name, r.type_name, r.data_type) for r in rows]
    expect([c[0] for c in cols] == ["order_id", "customer_id", "amount", "qty", "ordered_at", "status"], repr(cols))
    by = {r.column_name: r for r in rows}
    expect(by["order_id"].type_name == "int8" and by["order_id"].data_type == pyodbc.SQL_BIGINT, repr(cols))
    expect(by["customer_id"].type_name == "int4" and by["customer_id"].data_type == pyodbc.SQL_INTEGER, repr(cols))
    expect(by["amount"].type_name == "numeric" and by["amount"].data_type == pyodbc.SQL_NUMERIC, repr(cols))
    expect((by["amount"].column_size, by["amount"].decimal_digits) == (12, 2), f"numeric(12,2): {by['amount']!r}")
    expect(by["qty"].data_type == pyodbc.SQL_SMALLINT, repr(cols))
    expect(by["ordered_at"].type_name == "timestamp" and by["ordered_at"].data_type == pyodbc.SQL_TYPE_TIMESTAMP, repr(cols))
    expect(by["status"].type_name == "text", repr(cols))
    conn.rollback()

with check("100000 rows streamed"):
    cur.execute(STREAM_QUERY)
    n, last = count_in_batches(cur)
    expect(n == 100000 and last == (99999, "99999"), f"{n} rows, last {last!r}")
    conn.rollback()

with check("cancel long query 57014"):
    later(0.3, cur.cancel)
    t0 = time.monotonic()
    try:
        cur.execute(LONG_QUERY)
        raise AssertionError("not cancelled")
    except pyodbc.Error as e:
        expect("57014" in str(e), str(e))
    expect(time.monotonic() - t0 < 10, "quick")
    conn.rollback()
    cur.execute("select 1")
    expect(cur.fetchone()[0] == 1, "usable after cancel")

with check("error then recovery"):
    cur.execute("select 1")
    cur.fetchall()
    try:
        cur.execute("select * from sales.nope")
        raise AssertionError("no error")
    except pyodbc.ProgrammingError as e:
        expect("42P01" in str(e), str(e))
    # statement-level rollback (ROLLBACK TO _EXEC_SVP_...) keeps the transaction usable
    cur.execute("select max(order_id) from sales.orders")
    expect(cur.fetchone()[0] == 80, "recovered in the same transaction")
    conn.commit()

conn.close()
ok("done")
