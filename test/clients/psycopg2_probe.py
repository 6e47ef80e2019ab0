"""psycopg2 (libpq, simple protocol with client-side interpolation, BEGIN first) against the gateway."""

import psycopg2
import psycopg2.errors
import psycopg2.extensions

from _probe import *  # noqa: F401,F403

watchdog(60)

with check("connect"):
    conn = psycopg2.connect(host=HOST, port=PORT, dbname=DB, user=USER, connect_timeout=10)
    expect(conn.server_version >= 150000, f"server_version {conn.server_version}")

with check("simple query"):
    cur = conn.cursor()
    cur.execute("select count(*) as n from sales.orders")
    expect(cur.fetchone()[0] == ORDERS, "orders count")
    expect(conn.get_transaction_status() == psycopg2.extensions.TRANSACTION_STATUS_INTRANS, "BEGIN sent, status T")
    conn.rollback()
    expect(conn.get_transaction_status() == psycopg2.extensions.TRANSACTION_STATUS_IDLE, "status I after rollback")

with check("parameters int text numeric timestamp"):
    cur.execute(
        "select %s::integer + 1, %s || 'x', %s::numeric(10,2) * 2, %s::timestamp + interval '1 day'",
        (P_INT, P_TEXT, P_NUM, P_TS),
    )
    row = cur.fetchone()
    expect(row == (E_INT, E_TEXT, E_NUM, E_TS), f"row {row!r}")
    cur.execute("select count(*) from sales.orders where customer_id = %s and status = %s", (1, "shipped"))
    expect(isinstance(cur.fetchone()[0], int), "count")

with check("prepared reuse"):
    # psycopg2 has no protocol-level prepare: PREPARE/EXECUTE would be SQL; reuse the same statement.
    for i in range(6):
        cur.execute("select %s::int * 2 as v", (i,))
        expect(cur.fetchone()[0] == i * 2, f"iteration {i}")

with check("100000 rows streamed"):
    cur.execute(STREAM_QUERY)
    n, last = count_in_batches(cur)
    expect(n == 100000 and last == (99999, "99999"), f"{n} rows, last {last!r}")
    conn.rollback()

with check("named cursor (DECLARE/FETCH)"):
    named = conn.cursor(name="probe_cursor")
    named.itersize = 1000
    named.execute(STREAM_QUERY)
    n = sum(1 for _ in named)
    named.close()
    conn.rollback()
    expect(n == 100000, f"{n} rows through a server-side cursor")

with check("cancel long query 57014"):
    expect_cancelled(conn, cur, psycopg2.errors.QueryCanceled, lambda e: e.pgcode)

with check("error then recovery"):
    try:
        cur.execute("select * from sales.nope")
        raise AssertionError("no error")
    except psycopg2.errors.UndefinedTable as e:
        expect(e.pgcode == "42P01", e.pgcode)
    expect(conn.get_transaction_status() == psycopg2.extensions.TRANSACTION_STATUS_INERROR, "status E")
    try:
        cur.execute("select 1")
        raise AssertionError("no 25P02")
    except psycopg2.errors.InFailedSqlTransaction as e:
        expect(e.pgcode == "25P02", e.pgcode)
    conn.rollback()
    cur.execute("select max(order_id) from sales.orders")
    expect(cur.fetchone() == (80,), "recovered")
    conn.rollback()

with check("read-only refusal 25006"):
    try:
        cur.execute("create table sales.x (i int)")
        raise AssertionError("no error")
    except psycopg2.Error as e:
        expect(e.pgcode == "25006", e.pgcode)
    conn.rollback()

conn.close()
ok("done")
