"""Shared helpers of the twin probes (test/clients-twins.test.ts): each probe runs the same calls
against PostgreSQL 15 and the gateway and prints one line `<check>: <result>` per call; the test
compares the two outputs line by line. An error prints as `ERROR <sqlstate>` (or the exception's
class), so a refusal on one side and not the other is a difference too."""
import os
import sys

HOST = os.environ["FDL_HOST"]
PORT = int(os.environ["FDL_PORT"])
DB = os.environ["FDL_DB"]
USER = os.environ["FDL_USER"]
DSN = f"host={HOST} port={PORT} dbname={DB} user={USER}"


def show(name, fn):
    try:
        value = fn()
    except Exception as e:  # the difference is the result: printed, compared by the test
        state = getattr(e, "sqlstate", None) or getattr(e, "pgcode", None)
        orig = getattr(e, "orig", None)
        state = state or getattr(orig, "sqlstate", None)
        value = f"ERROR {state or type(e).__name__}"
        print(f"# {name}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", file=sys.stderr)
    print(f"{name}: {value!r}", flush=True)
