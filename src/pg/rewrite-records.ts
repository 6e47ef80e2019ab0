/**
 * The rewrite's record forms in JSON (rewrite-walk.ts calls jsonCall on every function call):
 * `json_build_object`, and `row_to_json` / `to_json` / `json_agg` of a record, built by pg-json-values.ts.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { jsonAggCall } from './pg-calls.js';
import {
  isJsonBuildArray,
  isJsonBuildObject,
  jsonBuildArray,
  jsonBuildObject,
  recordToJson,
  scalarToJson,
  wholeRowToJson,
} from './pg-json-values.js';
import { isRecord, rowArgs, wholeRowName } from './pg-rows.js';
import { isRegCast, names, str, type Ctx, type Node } from './rewrite-nodes.js';
import { NO_ROWS, walk } from './rewrite-walk.js';
import { numericArrayJson } from './numeric-arrays.js';

/** A JSON builder's arguments walked; a reg* value as its output function writes it, the name (`"integer"`, not the OID). */
function walkedArgs(args: Node[], ctx: Ctx): Node[] {
  return args.map((a) => walk(a, ctx, isRegCast(a)) as Node);
}

/** `json_build_object(…)`, `row_to_json(row(…))`, `row_to_json(t)`: values in JSON as PostgreSQL writes them (pg-json-values.ts). */
export function jsonCall(fc: Node, ctx: Ctx): Node | undefined {
  // an ARRAY[…] of numeric constants of mixed scales: its json as written, each element at its own scale
  const args = ((fc.args ?? []) as Node[]).map((a) => numericArrayJson(a) ?? a);
  if (isJsonBuildObject(fc) && !fc.func_variadic) {
    ctx.changed = true;
    return jsonBuildObject(walkedArgs(args, ctx));
  }
  if (isJsonBuildArray(fc) && !fc.func_variadic) {
    ctx.changed = true;
    return jsonBuildArray(walkedArgs(args, ctx));
  }
  const n = names(fc.funcname);
  const base = n.length === 1 || (n.length === 2 && n[0] === 'pg_catalog') ? n[n.length - 1] : undefined;
  if (
    (base === 'json_agg' || base === 'jsonb_agg') &&
    args.length === 1 &&
    isRecord(args[0], ctx.rowScope ?? NO_ROWS)
  ) {
    // PostgreSQL writes a record element after ", \n "; jsonb's records are in jsonb's normal form, not emulated.
    if (base === 'jsonb_agg') throw recordJsonbRefused();
    ctx.changed = true;
    return jsonAggCall({ ...fc, funcname: [str('json_agg')] }, [recordJson(args[0]!, ctx)], ', \n ');
  }
  if (base === 'to_json' && args.length === 1 && isRecord(args[0], ctx.rowScope ?? NO_ROWS)) {
    ctx.changed = true;
    return recordJson(args[0]!, ctx);
  }
  if (base === 'to_json' && args.length === 1 && args[0] !== (fc.args as Node[])[0]) {
    ctx.changed = true;
    return args[0]!;
  }
  const scalar = base === 'to_json' && args.length === 1 ? scalarToJson(walkedArgs(args, ctx)[0]!) : undefined;
  if (scalar) {
    ctx.changed = true;
    return scalar;
  }
  if (
    n[n.length - 1] !== 'row_to_json' ||
    args.length !== 1 ||
    (n.length === 2 && n[0] !== 'pg_catalog') ||
    n.length > 2
  )
    return undefined;
  const fields = rowArgs(args[0]);
  if (fields) {
    ctx.changed = true;
    return recordToJson(walk(fields, ctx, false) as Node[]);
  }
  const row = wholeRowName(args[0], ctx.rowScope ?? NO_ROWS, true);
  if (!row) return undefined;
  ctx.changed = true;
  return wholeRowToJson({ ...fc, funcname: [str('row_to_json')] }, { ColumnRef: { fields: [str(row)] } });
}

/** A record (row constructor or whole-row reference) as PostgreSQL's row_to_json writes it. */
function recordJson(record: Node, ctx: Ctx): Node {
  const fields = rowArgs(record);
  if (fields) return recordToJson(walk(fields, ctx, false) as Node[]);
  const row = wholeRowName(record, ctx.rowScope ?? NO_ROWS, true)!;
  return wholeRowToJson(
    { funcname: [str('row_to_json')], args: [], funcformat: 'COERCE_EXPLICIT_CALL' },
    { ColumnRef: { fields: [str(row)] } },
  );
}

function recordJsonbRefused(): SqlError {
  return new SqlError(
    SQLSTATE.featureNotSupported,
    'jsonb_agg() of a record is not supported by fdl-gateway',
    undefined,
    "jsonb's records are in jsonb's normal form: aggregate json instead, json_agg(record).",
  );
}
