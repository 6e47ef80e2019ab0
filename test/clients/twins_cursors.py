"""Server-side cursors as Python drivers use them: psycopg 3 named cursors (itersize, scroll,
NO SCROLL, WITH HOLD, binary, parameters) and SQLAlchemy 2's stream_results over psycopg 3.
Printed for test/clients-twins.test.ts to compare with PostgreSQL 15."""
import psycopg
import sqlalchemy as sa
from _twins import DSN, HOST, PORT, DB, USER, show

Q = "select order_id, customer_id, amount, ordered_at, status from sales.orders where order_id > %s order by order_id"

with psycopg.connect(DSN) as conn:
    def named_itersize():
        with conn.cursor("c_iter") as cur:
            cur.itersize = 7
            cur.execute(Q, (5,))
            rows = list(cur)
            return [len(rows), rows[0], rows[-1], cur.rownumber, [d.name for d in cur.description], [d.type_code for d in cur.description]]
    show("named cursor, itersize 7, parameter", named_itersize)
    conn.rollback()

    def named_fetchmany():
        with conn.cursor("c_many") as cur:
            cur.execute("select customer_id, name, signup, vip from sales.customers where country = %s and customer_id >= %s order by customer_id", ("DE", 2))
            return [cur.fetchone(), cur.fetchmany(3), len(cur.fetchall()), cur.fetchone()]
    show("named cursor, fetchone/fetchmany/fetchall, two parameters", named_fetchmany)
    conn.rollback()

    def scroll():
        with conn.cursor("c_scroll", scrollable=True) as cur:
            cur.execute(Q, (0,))
            out = [cur.fetchmany(4)]
            cur.scroll(-3)
            out.append(cur.fetchone())
            cur.scroll(10, mode="absolute")
            out.append(cur.fetchone())
            cur.scroll(0, mode="absolute")
            out.append(cur.fetchmany(2))
            cur.scroll(-1)
            out.append(cur.fetchall()[-1])
            cur.scroll(-2)
            out.append(cur.fetchone())
            return out
    show("scrollable cursor: relative and absolute, back and forth", scroll)
    conn.rollback()

    def default_scroll():
        # psycopg 3's default named cursor (neither SCROLL nor NO SCROLL): PostgreSQL goes back over a sorted plan
        with conn.cursor("c_default") as cur:
            cur.execute(Q, (0,))
            out = [cur.fetchmany(3)]
            cur.scroll(0, mode="absolute")
            out.append(cur.fetchmany(2))
            cur.scroll(-1)
            out += [cur.fetchone(), cur.rownumber]
            return out
    show("default named cursor scrolled back (scroll(0, 'absolute'), scroll(-1))", default_scroll)
    conn.rollback()

    def no_scroll():
        with conn.cursor("c_noscroll", scrollable=False) as cur:
            cur.execute(Q, (0,))
            cur.fetchmany(3)
            cur.scroll(-2)
            return cur.fetchone()
    show("NO SCROLL cursor scrolled back", no_scroll)
    conn.rollback()

    def no_scroll_forward():
        with conn.cursor("c_noscroll2", scrollable=False) as cur:
            cur.execute(Q, (0,))
            cur.fetchmany(3)
            cur.scroll(5)
            return [cur.fetchone(), cur.rownumber]
    show("NO SCROLL cursor scrolled forward", no_scroll_forward)
    conn.rollback()

    def binary():
        with conn.cursor("c_bin", binary=True) as cur:
            cur.execute(Q, (70,))
            return cur.fetchall()
    show("binary named cursor", binary)
    conn.rollback()

    def withhold():
        cur = conn.cursor("c_hold", withhold=True)
        cur.execute(Q, (60,))
        first = cur.fetchmany(2)
        conn.commit()
        rest = cur.fetchall()
        cur.close()
        return [first, len(rest), rest[-1]]
    show("WITH HOLD cursor read after COMMIT", withhold)

    def withhold_rolled_back():
        # PostgreSQL keeps a holdable cursor only once the transaction that declared it commits.
        cur = conn.cursor("c_hold_rb", withhold=True)
        cur.execute(Q, (60,))
        first = cur.fetchmany(2)
        conn.rollback()
        try:
            return [first, cur.fetchall()]
        finally:
            conn.rollback()
    show("WITH HOLD cursor gone after ROLLBACK", withhold_rolled_back)

    def withhold_savepoints():
        # SQL cursors across savepoints: ROLLBACK TO drops what was declared since; RELEASE hands it to the enclosing scope.
        out = []
        def fetch(name):
            try:
                with conn.transaction(savepoint_name="probe"):
                    return conn.execute(f"fetch 1 from {name}").fetchall()
            except psycopg.Error as e:
                return e.sqlstate
        conn.execute("declare h_kept cursor with hold for select order_id from sales.orders order by order_id")
        conn.commit()
        conn.execute("savepoint a")
        conn.execute("declare h_sp cursor with hold for select order_id from sales.orders order by order_id")
        conn.execute("declare n_sp cursor for select order_id from sales.orders order by order_id")
        conn.execute("rollback to savepoint a")
        out += [fetch("h_sp"), fetch("n_sp"), fetch("h_kept")]
        conn.execute("savepoint b")
        conn.execute("declare h_rel cursor with hold for select order_id from sales.orders order by order_id desc")
        conn.execute("release savepoint b")
        conn.execute("savepoint c")
        conn.execute("rollback to savepoint c")
        out.append(fetch("h_rel"))
        conn.commit()
        out += [fetch("h_rel"), fetch("h_kept")]
        conn.rollback()
        out.append(fetch("h_kept"))
        conn.execute("close all")
        conn.commit()
        return out
    show("WITH HOLD cursors across savepoints, COMMIT and ROLLBACK", withhold_savepoints)

    def many_open():
        try:
            a = conn.cursor("c_a")
            b = conn.cursor("c_b")
            a.execute("select customer_id from sales.customers order by customer_id")
            b.execute("select order_id from sales.orders order by order_id desc")
            out = [a.fetchone(), b.fetchone(), a.fetchone(), b.fetchmany(2)]
            with conn.cursor() as plain:
                out.append(plain.execute("select count(*) from sales.orders").fetchone())
            out += [a.fetchmany(2), len(b.fetchall())]
            return out
        finally:
            conn.rollback()
    show("two named cursors read in turn", many_open)

    def after_error():
        with conn.cursor("c_err") as cur:
            try:
                cur.execute("select cast(status as integer) from sales.orders")
                cur.fetchall()
            except psycopg.Error as e:
                conn.rollback()
                return e.sqlstate
    show("named cursor over a failing query", after_error)

    def needs_values():
        # to_char's format and round's places as parameters: the query is planned with their values.
        with conn.cursor("c_vals", scrollable=True) as cur:
            cur.itersize = 3
            cur.execute("select to_char(ordered_at, %s) as m, round(amount::numeric, %s) as a from sales.orders"
                        " where order_id < %s order by order_id", ("YYYY-MM", 1, 6))
            out = [cur.fetchmany(2), [d.name for d in cur.description], [d.type_code for d in cur.description]]
            cur.scroll(-1)
            out.append(cur.fetchall())
            return out
    show("named cursor, parameters that are to_char's format and round's places", needs_values)
    conn.rollback()

    def prepare_execute():
        conn.execute("prepare p_vals as select to_char(ordered_at, $1), round(amount::numeric, $2) from sales.orders where order_id = $3")
        out = [conn.execute("execute p_vals('YYYY', 2, 1)").fetchall(), conn.execute("execute p_vals('MM', 0, 2)").fetchall()]
        conn.execute("deallocate p_vals")
        return out
    show("SQL PREPARE/EXECUTE with to_char's format and round's places", prepare_execute)
    conn.rollback()

engine = sa.create_engine(sa.engine.URL.create("postgresql+psycopg", username=USER, host=HOST, port=PORT, database=DB))
with engine.connect() as c:
    def stream():
        result = c.execution_options(stream_results=True, max_row_buffer=10).execute(
            sa.text("select order_id, amount from sales.orders where status = :s order by order_id"), {"s": "shipped"})
        rows = [tuple(r) for r in result]
        return [len(rows), rows[:2], rows[-1]]
    show("SQLAlchemy 2 stream_results over psycopg 3", stream)

    def partitions():
        result = c.execution_options(yield_per=16).execute(sa.text("select order_id from sales.orders order by order_id"))
        return [len(p) for p in result.partitions()]
    show("SQLAlchemy 2 yield_per partitions", partitions)
engine.dispose()
