"""Shared helpers for the client probes run by test/clients-python.test.ts.

Each probe prints one line `ok <check>` per passed check and exits 0; on the first failure it
prints the traceback to stderr and exits 1. The gateway address comes from the environment:
FDL_HOST, FDL_PORT, FDL_DB.
"""
import contextlib
import datetime
import decimal
import os
import sys
import threading
import time
import traceback

HOST = os.environ.get("FDL_HOST", "127.0.0.1")
PORT = int(os.environ.get("FDL_PORT", "5433"))
DB = os.environ.get("FDL_DB", "basic")
USER = "probe"

# A query that runs for many seconds in DuckDB; the probes cancel it after ~300 ms.
LONG_QUERY = "select count(*) from range(100000000000) t(i) where i % 7 = 3"
STREAM_QUERY = "select i, i::varchar as s from range(100000) t(i)"

# Parameters of the four kinds every probe sends, and what the gateway must compute from them.
P_INT = 41
P_TEXT = "ab"
P_NUM = decimal.Decimal("12.50")
P_TS = datetime.datetime(2024, 1, 2, 3, 4, 5, 123456)
E_INT = 42
E_TEXT = "abx"
E_NUM = decimal.Decimal("25.00")
E_TS = datetime.datetime(2024, 1, 3, 3, 4, 5, 123456)

# Fixture facts (test/fixtures/repos/basic at HEAD).
ORDERS = 69


def ok(name):
    print(f"ok {name}", flush=True)


@contextlib.contextmanager
def check(name):
    try:
        yield
    except BaseException:
        print(f"FAILED {name}", file=sys.stderr, flush=True)
        traceback.print_exc()
        sys.stdout.flush()
        os._exit(1)
    ok(name)


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def later(seconds, fn):
    """Run fn once in a daemon thread after `seconds` (used to cancel a running query)."""
    t = threading.Timer(seconds, fn)
    t.daemon = True
    t.start()
    return t


def watchdog(seconds=60):
    """Never hang: the whole probe is killed after `seconds`."""
    def die():
        print(f"probe watchdog: gave up after {seconds}s", file=sys.stderr, flush=True)
        os._exit(3)
    later(seconds, die)


def expect_cancelled(conn, cur, cancel_error, sqlstate_of):
    """Cancels LONG_QUERY from another thread after ~300 ms (the driver's own cancel call) and checks
    that it ends with 57014, soon, and that the connection answers afterwards."""
    conn.autocommit = True
    later(0.3, conn.cancel)
    t0 = time.monotonic()
    try:
        cur.execute(LONG_QUERY)
        raise AssertionError("query was not cancelled")
    except cancel_error as e:
        expect(sqlstate_of(e) == "57014", sqlstate_of(e))
    expect(time.monotonic() - t0 < 10, "cancel took effect quickly")
    cur.execute("select 1")
    expect(tuple(cur.fetchone()) == (1,), "connection usable after cancel")
    conn.autocommit = False


def count_in_batches(cur, size=10000):
    """Reads the current result with fetchmany, as DB-API code does: (row count, last row as a tuple)."""
    n = 0
    last = None
    while True:
        rows = cur.fetchmany(size)
        if not rows:
            return n, last
        n += len(rows)
        last = tuple(rows[-1])
