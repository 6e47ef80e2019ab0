"""psycopg 3: extended protocol, binary parameters (%b) and binary results, prepare=True, cancel."""

import psycopg
import psycopg.errors
from psycopg.pq import TransactionStatus

from _probe import *  # noqa: F401,F403

watchdog(60)

with check("connect"):
    conn = psycopg.connect(host=HOST, port=PORT, dbname=DB, user=USER, connect_timeout=10)
    expect(conn.info.server_version >= 150000, f"server_version {conn.info.server_version}")

with check("simple query"):
    cur = conn.cursor()
    cur.execute("select count(*) as n from sales.orders")
    expect(cur.fetchone()[0] == ORDERS, "orders count")
    expect(conn.info.transaction_status == TransactionStatus.INTRANS, "BEGIN through extended protocol, status T")
    conn.rollback()

with check("parameters int text numeric timestamp"):
    # text (%s) parameters
    cur.execute(
        "select %s::integer + 1, %s || 'x', %s::numeric(10,2) * 2, %s::timestamp + interval '1 day'",
        (P_INT, P_TEXT, P_NUM, P_TS),
    )
    row = cur.fetchone()
    expect(row == (E_INT, E_TEXT, E_NUM, E_TS), f"row {row!r}")

with check("binary parameters and binary results"):
    bcur = conn.cursor(binary=True)
    # %b: int2 for small ints, int4/int8 for large ones, text oid 25, numeric and timestamp binary
    bcur.execute(
        "select %b::integer + 1, %b || 'x', %b::numeric(10,2) * 2, %b::timestamp + interval '1 day', %b::bigint * 2",
        (P_INT, P_TEXT, P_NUM, P_TS, 3_000_000_000),
    )
    row = bcur.fetchone()
    expect(row == (E_INT, E_TEXT, E_NUM, E_TS, 6_000_000_000), f"row {row!r}")
    expect(bcur.pgresult.fformat(0) == 1, "result column is binary")
    bcur.execute(
        "select order_id, amount, ordered_at, status from sales.orders where customer_id = %b order by order_id",
        (1,),
    )
    rows = bcur.fetchall()
    expect(len(rows) == 3 and all(isinstance(r[1], decimal.Decimal) for r in rows), f"rows {rows!r}")
    bcur.execute("select id, b, i64, f64, d18, s, bl, dt, tm, ts, tstz, iv, u, j from main.all_types where id = %b", (1,))
    r = bcur.fetchone()
    expect(r is not None and r[0] == 1 and r[5] == "plain", f"all_types row {r!r}")
    conn.rollback()

with check("prepared reuse"):
    for i in range(7):
        cur.execute("select %b::int * 2 as v, %s::text as t", (i, f"s{i}"), prepare=True)
        expect(cur.fetchone() == (i * 2, f"s{i}"), f"iteration {i}")
    # automatic preparation after prepare_threshold (5) executions
    for i in range(7):
        cur.execute("select count(*) from sales.orders where order_id > %s", (i,))
        expect(isinstance(cur.fetchone()[0], int), f"auto iteration {i}")
    conn.rollback()

with check("100000 rows streamed"):
    n = 0
    last = None
    for row in cur.stream(STREAM_QUERY):
        n += 1
        last = row
    expect(n == 100000 and last == (99999, "99999"), f"{n} rows, last {last!r}")
    conn.rollback()

with check("cancel long query 57014"):
    expect_cancelled(conn, cur, psycopg.errors.QueryCanceled, lambda e: e.sqlstate)

with check("error then recovery"):
    try:
        cur.execute("select * from sales.nope where order_id = %s", (1,))
        raise AssertionError("no error")
    except psycopg.errors.UndefinedTable as e:
        expect(e.sqlstate == "42P01", e.sqlstate)
    expect(conn.info.transaction_status == TransactionStatus.INERROR, "status E")
    conn.rollback()
    # prepared statements survive ROLLBACK (psycopg sends DEALLOCATE ALL after it)
    cur.execute("select %b::int * 2 as v, %s::text as t", (5, "x"), prepare=True)
    expect(cur.fetchone() == (10, "x"), "prepared after rollback")
    cur.execute("select max(order_id) from sales.orders")
    expect(cur.fetchone() == (80,), "recovered")
    conn.rollback()

conn.close()
ok("done")
