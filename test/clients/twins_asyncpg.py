"""asyncpg's server-side cursors (Cursor.fetch, forward, fetchrow; iteration with prefetch) inside a
transaction, printed for test/clients-twins.test.ts to compare with PostgreSQL 15."""
import asyncio
import datetime
import decimal
import asyncpg
from _twins import HOST, PORT, DB, USER, show

Q = "select order_id, amount, ordered_at from sales.orders where order_id > $1 order by order_id"


async def main():
    conn = await asyncpg.connect(host=HOST, port=PORT, database=DB, user=USER)
    out = {}
    try:
        async with conn.transaction():
            cur = await conn.cursor(Q, 10)
            a = await cur.fetch(3)
            moved = await cur.forward(5)
            b = await cur.fetchrow()
            c = await cur.fetch(100)
            out["cursor fetch, forward, fetchrow"] = [[tuple(r) for r in a], moved, tuple(b), len(c), tuple(c[-1])]
        async with conn.transaction():
            seen = [r["order_id"] async for r in conn.cursor("select order_id from sales.orders order by order_id", prefetch=7)]
            out["cursor iteration with prefetch 7"] = [len(seen), seen[:3], seen[-1]]
        try:
            async with conn.transaction():
                cur = await conn.cursor("select cast(status as integer) from sales.orders")
                await cur.fetch(5)
            out["cursor over a failing cast"] = "no error"
        except asyncpg.PostgresError as e:
            out["cursor over a failing cast"] = f"ERROR {e.sqlstate}"
        out["connection usable afterwards"] = await conn.fetchval("select count(*) from sales.orders")
        # One untyped parameter beside two numeric types (and beside smallint, then numeric): PostgreSQL
        # types it at its first use; the gateway failed at prepare with DuckDB's '*(DECIMAL(10,4), VARCHAR)'.
        st = await conn.prepare("select amount * $1, amount::numeric(10,4) * $1 from sales.orders where order_id = 3")
        out["one parameter beside two numeric types"] = [[p.name for p in st.get_parameters()], tuple(await st.fetchrow(decimal.Decimal("3")))]
        st = await conn.prepare("select qty * $1, amount * $1 from sales.orders where order_id = 3")
        out["one parameter beside smallint and numeric"] = [[p.name for p in st.get_parameters()], tuple(await st.fetchrow(3))]
        # A parameter the statement is planned with (round's places) beside date/time parameters, which
        # asyncpg sends binary: the gateway refused them ("a binary parameter of type OID 1114 …").
        out["round places beside binary date/time parameters"] = tuple(
            await conn.fetchrow(
                "select round(avg(amount)::numeric, $1), $2::interval, $3::time, count(*) from sales.orders"
                " where ordered_at >= $4 and ordered_at::date <> $5",
                2,
                datetime.timedelta(days=1, microseconds=5),
                datetime.time(10, 30, 1, 5),
                datetime.datetime(2024, 1, 2, 10, 30),
                datetime.date(2024, 1, 3),
            )
        )
        # "char" catalog columns arrive as PostgreSQL's one-byte type (OID 18), decoded by asyncpg as bytes.
        st = await conn.prepare(
            "select t.typtype as kind, t.typcategory, t.typname from pg_type t where t.oid = 1007"
        )
        out['"char" catalog columns'] = [[a.type.name for a in st.get_attributes()], tuple(await st.fetchrow())]
        # A user-defined codec makes asyncpg run its type introspection (typtype, typkind … as "char").
        await conn.set_type_codec("int4", schema="pg_catalog", encoder=str, decoder=lambda v: f"<{v}>", format="text")
        out["type introspection for a codec"] = await conn.fetchval("select customer_id from sales.orders where order_id = 3")
    finally:
        await conn.close()
    # Arrays are introspected on first use (asyncpg 0.28+ turning jit off around it with set_config beside
    # current_setting): a new connection, so nothing is cached yet.
    conn = await asyncpg.connect(host=HOST, port=PORT, database=DB, user=USER)
    try:
        out["array parameter and result on a new connection"] = [
            await conn.fetchval("select count(*) from sales.orders where order_id = any($1)", [1, 2, 3]),
            await conn.fetchval("select array_agg(order_id order by order_id) from sales.orders where order_id < 4"),
            await conn.fetchval("select $1::date[]", [datetime.date(2024, 2, 29)]),
        ]
    finally:
        await conn.close()
    return out


result = asyncio.run(main())
for name, value in result.items():
    show(name, lambda value=value: value)
