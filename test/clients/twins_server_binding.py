"""Constants sent as parameters where PostgreSQL's meaning needs a constant (to_char's format,
round's places, to_date's format), as psycopg 3 and SQLAlchemy 2 bind them on the server; psycopg2
writes them into the text. Printed for test/clients-twins.test.ts to compare with PostgreSQL 15."""
from decimal import Decimal
import psycopg
import sqlalchemy as sa
from _twins import DSN, HOST, PORT, DB, USER, show

with psycopg.connect(DSN, autocommit=True) as conn:
    show("to_char with a parameter format", lambda: conn.execute(
        "select to_char(ordered_at, %s) as m, count(*) from sales.orders group by 1 order by 1", ("YYYY-MM",)).fetchall())
    show("to_char, two formats in turn", lambda: [conn.execute(
        "select to_char(ordered_at, %s) from sales.orders order by order_id limit 2", (f,)).fetchall() for f in ("YYYY", "TMMon DD", "YYYY")])
    show("round of a numeric cast with parameter places", lambda: conn.execute(
        "select round(cast(avg(amount) as numeric), %s) from sales.orders", (2,)).fetchall())
    show("round, two parameters and a filter parameter", lambda: conn.execute(
        "select round(avg(amount)::numeric, %s), round(sum(amount)::numeric, %s), count(*) from sales.orders where qty >= %s",
        (1, 0, 2)).fetchall())
    show("to_date with parameters", lambda: conn.execute("select to_date(%s, %s)", ("2024-03-05", "YYYY-MM-DD")).fetchall())
    show("prepared (named) statement, described, run with several values", lambda: [conn.execute(
        "select to_char(ordered_at, %s), round(amount::numeric, %s) from sales.orders where order_id = %s",
        (f, p, 3), prepare=True).fetchall() for f, p in (("YYYY-MM-DD", 1), ("HH24:MI", 0), ("YYYY-MM-DD", 1))])
    show("lag and lead with parameter offsets and defaults", lambda: conn.execute(
        "select order_id, lag(qty, %s, %s) over (order by order_id), lead(qty, %s) over (order by order_id) from sales.orders order by order_id limit 4",
        (2, 0, 1)).fetchall())
    # Decimal parameters are numeric: PostgreSQL's rules hang on each value's scale (planned with their values)
    show("round of arithmetic on a numeric parameter", lambda: conn.execute(
        "select round(%s * 100, 1), round(%s + 0, 2), round(-%s, 2), round(%s, 2), round(%s / 4, 2)",
        (Decimal("0.12345"), Decimal("0.333"), Decimal("0.333"), Decimal("7"), Decimal("7"))).fetchall())
    show("a numeric parameter beside an aggregate and a column", lambda: conn.execute(
        "select round(100 * count(*) / %s, 1), round(sum(qty) * %s / 100, 2), min(round(qty * %s, 2)) from sales.orders",
        (Decimal("3"), Decimal("19.5"), Decimal("0.15"))).fetchall())
    show("a numeric parameter divided, and its result type", lambda: (lambda cur: (cur.fetchall(), [d.type_code for d in cur.description]))(
        conn.execute("select %s / 3, %s::numeric * 2", (Decimal("1.10"), Decimal("2.5")))))
    show("a prepared statement with numeric parameters run with several values", lambda: [conn.execute(
        "select round(%s * 1, 2), count(*) from sales.orders where amount > %s", (v, v), prepare=True).fetchall()
        for v in (Decimal("0.333"), Decimal("50.5"), Decimal("0.333"))])
    # numeric parameters past 18 digits: exact to 38 (DuckDB's 18-digit DECIMAL overflowed, 22003)
    show("numeric parameters past 18 digits", lambda: conn.execute(
        "select %s + 1, %s * 10, %s - %s, sum(amount + %s) from sales.orders",
        (Decimal("999999999999999999"), Decimal("99999999999999999.5"), Decimal("-999999999999999999"), Decimal("1"),
         Decimal("9999999999999999.99"))).fetchall())
    # a float parameter is float8: round half to even
    show("round of float and int parameters", lambda: conn.execute(
        "select round(%s), round(%s), round(%s), round(%s)", (2.5, -2.5, 3.5, 2)).fetchall())
    show("round of a Decimal parameter, with and without places", lambda: conn.execute(
        "select round(%s), round(%s, 0), round(%s::numeric)", (Decimal("2.5"), Decimal("2.5"), Decimal("-2.5"))).fetchall())
    # psycopg 3 sends a small int as int2: beside an integer constant it is int2 * int4 = int4
    show("an int2 parameter times an integer constant", lambda: conn.execute(
        "select %s * 1000, %s + 32767, %s * qty from sales.orders order by order_id limit 2", (300, 300, 300)).fetchall())
    show("two int2 parameters multiplied (smallint out of range)", lambda: conn.execute("select %s * %s", (300, 300)).fetchall())
    with conn.cursor() as cur:
        cur.execute("select to_char(ordered_at, %s) as d, round(amount::numeric, %s) as a from sales.orders where order_id = 1", ("DD", 1))
        show("result description", lambda: [(d.name, d.type_code) for d in cur.description])

engine = sa.create_engine(sa.engine.URL.create("postgresql+psycopg", username=USER, host=HOST, port=PORT, database=DB))
orders = sa.table("orders", sa.column("ordered_at"), sa.column("amount"), sa.column("qty"), schema="sales")
with engine.connect() as c:
    month = sa.func.to_char(orders.c.ordered_at, "YYYY-MM").label("month")
    show("SQLAlchemy 2: to_char grouped by month", lambda: [tuple(r) for r in c.execute(
        sa.select(month, sa.func.count()).group_by(month).order_by(month))])
    show("SQLAlchemy 2: round(cast(avg(amount), Numeric), 2)", lambda: [tuple(r) for r in c.execute(
        sa.select(sa.func.round(sa.cast(sa.func.avg(orders.c.amount), sa.Numeric), 2)))])
    previous = sa.func.lag(orders.c.qty, 1, 0).over(order_by=orders.c.ordered_at).label("previous")
    show("SQLAlchemy 2: func.lag(qty, 1, 0)", lambda: [tuple(r) for r in c.execute(
        sa.select(orders.c.ordered_at, previous).order_by(orders.c.ordered_at).limit(3))])
