"""Session 52 (issue 25): a psycopg 3 tuple after IN (PostgreSQL: 42601), timedelta parameters beside
an interval spelled in other fields, and asyncpg's decoding of name and "char" values. Printed for
test/clients-twins.test.ts to compare with PostgreSQL 15."""
import asyncio
import datetime
import asyncpg
import psycopg
from _twins import DSN, HOST, PORT, DB, USER, show

with psycopg.connect(DSN, autocommit=True) as conn:
    show("psycopg 3: a tuple after IN", lambda: conn.execute("select 1 where 1 in %s", ((1, 2),)).fetchall())
    show("psycopg 3: a list with = any", lambda: conn.execute("select 1 where 1 = any(%s)", ([1, 2],)).fetchall())
    show("psycopg 3: timedelta parameters beside interval '1 month'", lambda: conn.execute(
        "select max(ordered_at + interval '1 month'), max(ordered_at + %s), max(ordered_at + %s) from sales.orders",
        (datetime.timedelta(days=30), datetime.timedelta(hours=24))).fetchall())


async def main():
    conn = await asyncpg.connect(host=HOST, port=PORT, database=DB, user=USER)
    try:
        try:
            rows = await conn.fetch("select 'abc'::name as n, 'xyz'::\"char\" as c, status::\"char\" as s from sales.orders order by order_id limit 2")
            print(f"asyncpg rows: {[tuple(r) for r in rows]!r}", flush=True)
        except asyncpg.PostgresError as e:
            print(f"asyncpg rows: ERROR {e.sqlstate}", flush=True)
    finally:
        await conn.close()


asyncio.run(main())
