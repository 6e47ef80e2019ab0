"""SQLAlchemy Core 1.4 (psycopg2 dialect, the Superset path): engine connect, select, Inspector."""
import time

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.exc import DBAPIError, OperationalError

from _probe import *  # noqa: F401,F403

watchdog(90)

with check("connect"):
    engine = sa.create_engine(f"postgresql+psycopg2://{USER}@{HOST}:{PORT}/{DB}", future=True, pool_size=3, max_overflow=0, pool_timeout=10)
    conn = engine.connect()
    expect(engine.dialect.server_version_info[0] >= 15, str(engine.dialect.server_version_info))

with check("simple query"):
    expect(conn.execute(sa.text("select count(*) from sales.orders")).scalar_one() == ORDERS, "orders count")
    conn.rollback()

with check("parameters int text numeric timestamp"):
    row = conn.execute(
        sa.text("select cast(:i as integer) + 1, :t || 'x', cast(:n as numeric(10,2)) * 2, cast(:ts as timestamp) + interval '1 day'"),
        {"i": P_INT, "t": P_TEXT, "n": P_NUM, "ts": P_TS},
    ).one()
    expect(tuple(row) == (E_INT, E_TEXT, E_NUM, E_TS), f"row {tuple(row)!r}")
    conn.rollback()

with check("core select"):
    md = sa.MetaData()
    orders = sa.Table("orders", md, autoload_with=conn, schema="sales")
    customers = sa.Table("customers", md, autoload_with=conn, schema="sales")
    q = (
        sa.select(customers.c.name, sa.func.count().label("n"), sa.func.sum(orders.c.amount).label("total"))
        .join_from(orders, customers, orders.c.customer_id == customers.c.customer_id)
        .where(orders.c.status == sa.bindparam("status"))
        .group_by(customers.c.name)
        .order_by(sa.desc("total"))
        .limit(3)
    )
    rows = conn.execute(q, {"status": "shipped"}).all()
    expect(len(rows) == 3 and all(r.n > 0 for r in rows), f"rows {rows!r}")
    expect(rows[0].total >= rows[1].total, "ordered by total")
    conn.rollback()

with check("prepared reuse"):
    for i in range(6):
        r = conn.execute(sa.text("select cast(:v as int) * 2"), {"v": i}).scalar_one()
        expect(r == i * 2, f"iteration {i}")
    conn.rollback()

with check("inspector"):
    insp = sa.inspect(engine)
    schemas = insp.get_schema_names()
    expect("sales" in schemas and "main" in schemas, f"schemas {schemas}")
    expect(not any(s.startswith("pg_") for s in schemas), f"pg_ schemas listed: {schemas}")  # PostgreSQL lists information_schema too
    tables = insp.get_table_names(schema="sales")
    expect(sorted(tables) == ["customers", "orders"], f"tables {tables}")
    expect("all_types" in insp.get_table_names(schema="main"), "main tables")
    expect(insp.get_view_names(schema="sales") == [], f"views {insp.get_view_names(schema='sales')}")
    cols = {c["name"]: c for c in insp.get_columns("orders", schema="sales")}
    expect(list(cols) == ["order_id", "customer_id", "amount", "qty", "ordered_at", "status"], f"columns {list(cols)}")
    expect(isinstance(cols["order_id"]["type"], sa.BigInteger), repr(cols["order_id"]["type"]))
    expect(isinstance(cols["customer_id"]["type"], sa.Integer), repr(cols["customer_id"]["type"]))
    amount = cols["amount"]["type"]
    expect(isinstance(amount, sa.Numeric) and (amount.precision, amount.scale) == (12, 2), repr(amount))
    expect(isinstance(cols["qty"]["type"], sa.SmallInteger), repr(cols["qty"]["type"]))
    expect(isinstance(cols["ordered_at"]["type"], postgresql.TIMESTAMP) and not cols["ordered_at"]["type"].timezone, repr(cols["ordered_at"]["type"]))
    expect(isinstance(cols["status"]["type"], sa.Text), repr(cols["status"]["type"]))
    expect(cols["status"]["nullable"] is True, "nullable")
    at = {c["name"]: c["type"] for c in insp.get_columns("all_types", schema="main")}
    expect(isinstance(at["b"], sa.Boolean) and isinstance(at["f64"], postgresql.DOUBLE_PRECISION), repr(at))
    expect(isinstance(at["tstz"], postgresql.TIMESTAMP) and at["tstz"].timezone, repr(at["tstz"]))
    expect(isinstance(at["u"], postgresql.UUID) and isinstance(at["j"], postgresql.JSON), repr(at))
    expect(isinstance(at["bl"], postgresql.BYTEA) and isinstance(at["dt"], sa.Date), repr(at))
    pk = insp.get_pk_constraint("orders", schema="sales")
    expect(pk["constrained_columns"] == [], f"pk {pk}")
    comment = insp.get_table_comment("orders", schema="sales")
    expect(comment["text"] == "Orders (DuckLake table comment)", f"comment {comment}")
    expect(insp.get_table_comment("customers", schema="sales")["text"] == "One row per customer.", "comment from dataset.json")
    expect(insp.get_indexes("orders", schema="sales") == [], "indexes")
    expect(insp.get_foreign_keys("orders", schema="sales") == [], "fks")

with check("100000 rows streamed"):
    with engine.connect() as c2:
        # stream_results=True would need server-side cursors (DECLARE/FETCH), which the gateway lacks
        res = c2.execute(sa.text("select i from range(100000) t(i)"))
        n = 0
        for part in res.partitions(10000):
            n += len(part)
        expect(n == 100000, f"{n} rows")

with check("cancel long query 57014"):
    raw = conn.connection.dbapi_connection if hasattr(conn.connection, "dbapi_connection") else conn.connection.connection
    later(0.3, raw.cancel)
    t0 = time.monotonic()
    try:
        conn.execute(sa.text(LONG_QUERY))
        raise AssertionError("not cancelled")
    except OperationalError as e:
        expect(e.orig.pgcode == "57014", e.orig.pgcode)
    expect(time.monotonic() - t0 < 10, "quick")
    conn.rollback()

with check("error then recovery"):
    try:
        conn.execute(sa.text("select * from sales.nope"))
        raise AssertionError("no error")
    except DBAPIError as e:
        expect(e.orig.pgcode == "42P01", e.orig.pgcode)
    conn.rollback()
    expect(conn.execute(sa.text("select max(order_id) from sales.orders")).scalar_one() == 80, "recovered")
    conn.rollback()

conn.close()
engine.dispose()
ok("done")
