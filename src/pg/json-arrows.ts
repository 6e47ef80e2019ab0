/**
 * `j -> k`, `j ->> k`, `j #> p`, `j #>> p` where DuckDB's answer can differ from PostgreSQL's: a json
 * member's text is, in PostgreSQL, the input's own characters (`{"a": 1}`, `1.50`, `"\u00e9"`); DuckDB
 * prints the member anew, compactly (`{"a":1}`, `1.5`, `"é"`). A jsonb member read as text is jsonb's
 * normal form (`{"a": 1, "b": 2}`). The extraction stays DuckDB's own call; a guard looks at its result
 * and, only for a member that could print differently (an object, an array, a number with a fraction
 * or an exponent, a zero, a string where the input has escapes), checks whether DuckDB printed the whole
 * input as written: then every member's text is the input's own. Otherwise refused (0A000), never answered
 * differently. A string member's text (`->>`) and an integer's are the same in both, and stay one call.
 * The guards call DuckDB's regexp_matches and strpos by their system names: their patterns and needles are
 * constants, and the session's cost guards over them (engine/) made each new text's bind ~10 ms slower.
 */
import { COMPAT_DB } from './catalog/names.js';
import { call, compat, names, PGCAT, type Node } from './rewrite-nodes.js';

/** A `->>` text that may be a member whose PostgreSQL text differs: an object, an array, a number with a fraction or exponent, a zero. */
const TEXT_SUSPECT = '^(?:[\\[{]|-?0$|-?[0-9]+[.eE])';
/** The same over a `->` member's JSON text, strings too (escapes). */
const JSON_SUSPECT = '^(?:[\\[{"]|-?0$|-?[0-9]+[.eE])';

const REFUSED = (what: string) =>
  `error('${what} of a member whose text DuckDB prints differently (an object, an array or a number from an input with spaces, escapes or numbers such as 1.50) is not supported by fdl-gateway|PostgreSQL keeps json''s text as written and jsonb''s numbers as numeric; DuckDB prints members anew, compactly. Cast a number ((j ->> ''k'')::numeric(12,2), ::float8), or read the members themselves (j -> ''k'' ->> ''x''); a jsonb object or array whose keys PostgreSQL sorts: j -> ''k''.')`;

/** The input as DuckDB prints it: each member's text is then the input's own. */
const PRINTED_AS_WRITTEN = 'CAST(r AS VARCHAR) = CAST(json(r) AS VARCHAR)';
/** A member kept by type: a string where the input has no escape, an integer where the input has no -0. */
const KEPT_BY_TYPE = `CASE json_type(m)
    WHEN 'VARCHAR' THEN system.main.strpos(CAST(r AS VARCHAR), '\\') = 0
    WHEN 'BIGINT' THEN system.main.strpos(CAST(r AS VARCHAR), '-0') = 0
    WHEN 'UBIGINT' THEN system.main.strpos(CAST(r AS VARCHAR), '-0') = 0
    WHEN 'BOOLEAN' THEN true WHEN 'NULL' THEN true ELSE false END`;

export const JSON_ARROW_MACROS: ReadonlyArray<[string, string]> = [
  // json `->`/`#>` (r: the input whose text the member comes from; m: DuckDB's member)
  [
    '_pgsem_jget(r, m)',
    `CASE WHEN m IS NULL OR NOT system.main.regexp_matches(CAST(m AS VARCHAR), '${JSON_SUSPECT}') THEN m
      WHEN ${KEPT_BY_TYPE} OR ${PRINTED_AS_WRITTEN} THEN m
      ELSE CAST(${REFUSED('json -> or #>')} AS JSON) END`,
  ],
  // json `->>`/`#>>` (s: DuckDB's text; m: the member, read only where s is suspect)
  [
    '_pgsem_jtext(r, s, m)',
    `CASE WHEN s IS NULL OR NOT system.main.regexp_matches(s, '${TEXT_SUSPECT}') THEN s
      WHEN json_type(m) = 'VARCHAR' OR ${KEPT_BY_TYPE} OR ${PRINTED_AS_WRITTEN} THEN s
      ELSE ${REFUSED('json ->> or #>>')} END`,
  ],
  // jsonb `->`/`#>` (printed as jsonb by the wire, keys sorted and spaced): a number as written, where DuckDB
  // prints the whole input's tokens as written
  [
    '_pgsem_jbget(r, m)',
    `CASE WHEN m IS NULL OR NOT system.main.regexp_matches(CAST(m AS VARCHAR), '${TEXT_SUSPECT}') THEN m
      WHEN _pgsem_jsq(CAST(r AS VARCHAR)) = CAST(json(r) AS VARCHAR) THEN m
      ELSE CAST(${REFUSED('jsonb -> or #>')} AS JSON) END`,
  ],
  // jsonb `->>`/`#>>`: a container as jsonb prints it (n: the input is a constant in jsonb's normal form, keys
  // sorted), a number as written where DuckDB prints the whole input's tokens as written
  [
    '_pgsem_jbtext(r, s, m, n)',
    `CASE WHEN s IS NULL OR NOT system.main.regexp_matches(s, '${TEXT_SUSPECT}') THEN s
      WHEN json_type(m) IN ('VARCHAR', 'BIGINT', 'UBIGINT', 'BOOLEAN', 'NULL') THEN s
      WHEN _pgsem_jsq(CAST(r AS VARCHAR)) <> CAST(json(r) AS VARCHAR) THEN ${REFUSED('jsonb ->> or #>>')}
      WHEN json_type(m) = 'DOUBLE' THEN s
      WHEN n THEN _pgsem_jsp(CAST(m AS VARCHAR))
      ELSE ${REFUSED('jsonb ->> or #>>')} END`,
  ],
  // The same over an input that is an expression (json_build_object(…) ->> 'k'): the input named once, as a
  // lambda's parameter, so DuckDB binds it once (each guard above names it up to eight times: 84 → 722 ms a new text)
  ...(['jget', 'jbget'] as const).map((g): [string, string] => [
    `_pgsem_${g}1(r, k)`,
    `list_transform([r], lambda fdl_pg_jr: _pgsem_${g}(fdl_pg_jr, system.main.json_extract(fdl_pg_jr, k)))[1]`,
  ]),
  [
    '_pgsem_jtext1(r, k)',
    'list_transform([r], lambda fdl_pg_jr: _pgsem_jtext(fdl_pg_jr, system.main.json_extract_string(fdl_pg_jr, k), system.main.json_extract(fdl_pg_jr, k)))[1]',
  ],
  [
    '_pgsem_jbtext1(r, k, n)',
    'list_transform([r], lambda fdl_pg_jr: _pgsem_jbtext(fdl_pg_jr, system.main.json_extract_string(fdl_pg_jr, k), system.main.json_extract(fdl_pg_jr, k), n))[1]',
  ],
  // With a constant key the member is read by DuckDB's own json_extract (the session's guard over it is for
  // built values; one constant path's member is no larger than the input), b the input of the last step
  ['_pgsem_jgetk(r, b, k)', '_pgsem_jget(r, system.main.json_extract(b, k))'],
  ['_pgsem_jbgetk(r, b, k)', '_pgsem_jbget(r, system.main.json_extract(b, k))'],
  ['_pgsem_jtextk(r, s, b, k)', '_pgsem_jtext(r, s, system.main.json_extract(b, k))'],
  ['_pgsem_jbtextk(r, s, b, k, n)', '_pgsem_jbtext(r, s, system.main.json_extract(b, k), n)'],
];

const GUARDS = new Set([
  '_pgsem_jget',
  '_pgsem_jbget',
  '_pgsem_jtext',
  '_pgsem_jbtext',
  '_pgsem_jtextk',
  '_pgsem_jbtextk',
]);
/** The guards that take the last step's input and key: the member they stand for. */
const KEYED = new Set(['_pgsem_jgetk', '_pgsem_jbgetk']);
/** The guards of one input read once, and the extraction each stands for. */
const ONCE: Readonly<Record<string, string>> = {
  _pgsem_jget1: 'json_extract',
  _pgsem_jbget1: 'json_extract',
  _pgsem_jtext1: 'json_extract_string',
  _pgsem_jbtext1: 'json_extract_string',
};

/** A guard call this module made: its name, else undefined. */
function guardOf(n: Node | undefined): string | undefined {
  const parts = names(n?.FuncCall?.funcname as Node[] | undefined);
  return parts.length === 3 &&
    parts[0] === COMPAT_DB &&
    parts[1] === PGCAT &&
    (GUARDS.has(parts[2]!) || KEYED.has(parts[2]!) || ONCE[parts[2]!])
    ? parts[2]
    : undefined;
}

/** DuckDB's own extraction a guard wraps (the member, or its text, as DuckDB prints it); any other node as it is. */
export function unguarded(n: Node): Node {
  const g = guardOf(n);
  if (!g) return n;
  const args = n.FuncCall.args as Node[];
  if (ONCE[g]) return call([ONCE[g]], [args[0]!, args[1]!]);
  return KEYED.has(g) ? call(['json_extract'], [args[1]!, args[2]!]) : args[1]!;
}

/** An input DuckDB binds cheaply however often a guard names it: a column, a constant, a parameter, casts of them. */
function cheap(n: Node): boolean {
  if (n.ColumnRef || n.A_Const || n.ParamRef) return true;
  return !!n.TypeCast && cheap(n.TypeCast.arg as Node);
}

/** The input an extraction reads its members from: below every guard and DuckDB extraction call. */
function rootOf(n: Node): Node {
  for (;;) {
    if (guardOf(n)) n = (n.FuncCall.args as Node[])[0]!;
    else if (
      EXTRACTIONS.has(names(n.FuncCall?.funcname as Node[] | undefined).join('.')) &&
      n.FuncCall.args?.length === 2
    )
      n = (n.FuncCall.args as Node[])[0]!;
    else return n;
  }
}
const EXTRACTIONS = new Set(['json_extract', 'json_extract_string']);

export interface ArrowOperand {
  /** The operand as rewritten (possibly a guard of an inner arrow). */
  value: Node;
  /** Syntactically jsonb (a cast to jsonb, or `->`/`#>` of one). */
  jsonb: boolean;
  /** A string constant cast to jsonb: the rewrite wrote it in jsonb's normal form (keys sorted). */
  normalized: boolean;
  /** An outermost select-list item: a json member (`->`, `#>`) is seen as text there. */
  shown: boolean;
}

/**
 * The guarded extraction: `op` one of `->`, `->>`, `#>`, `#>>`, `key` the key, index or path DuckDB's
 * call takes. An inner arrow's guard is dropped (its member is not seen): the outer one checks the input.
 */
export function guardedArrow(op: string, operand: ArrowOperand, key: Node): Node {
  const inner = operand.value;
  // the input whose text the members come from (an inner arrow's member is DuckDB's print, not the input's)
  const root = rootOf(inner);
  const base = unguarded(inner);
  const member = call(['json_extract'], [base, key]);
  const normalized = { A_Const: { boolval: { boolval: operand.normalized } } };
  // an expression as the input, read directly with a constant key: named once
  const constant = !!key.A_Const && !key.A_Const.isnull;
  const once = !cheap(root) && base === root && constant;
  if (op === '->' || op === '#>') {
    // a member inside an expression is not seen as text (jsonb's is printed by the wire, keys sorted)
    if (!operand.shown) return member;
    const g = operand.jsonb ? '_pgsem_jbget' : '_pgsem_jget';
    if (once) return compat(`${g}1`, [root, key]);
    return constant ? compat(`${g}k`, [root, base, key]) : compat(g, [root, member]);
  }
  const text = call(['json_extract_string'], [base, key]);
  if (once)
    return operand.jsonb ? compat('_pgsem_jbtext1', [root, key, normalized]) : compat('_pgsem_jtext1', [root, key]);
  if (constant)
    return operand.jsonb
      ? compat('_pgsem_jbtextk', [root, text, base, key, normalized])
      : compat('_pgsem_jtextk', [root, text, base, key]);
  return operand.jsonb
    ? compat('_pgsem_jbtext', [root, text, member, normalized])
    : compat('_pgsem_jtext', [root, text, member]);
}

/** A string constant whose equality with a member's text is the same for DuckDB's and PostgreSQL's text. */
export function unsuspectConstant(n: Node | undefined): boolean {
  const s = n?.A_Const?.sval?.sval as string | undefined;
  return typeof s === 'string' && !new RegExp(TEXT_SUSPECT).test(s);
}

/** DuckDB's extraction call for `op` (pg-operators.ts: json_extract(j, k) or json_extract_string(j, k)) guarded; any other call as it is. */
export function guardedExtraction(op: string, extraction: Node, operand: ArrowOperand): Node {
  const fc = extraction.FuncCall as Node | undefined;
  const args = (fc?.args ?? []) as Node[];
  if (!EXTRACTIONS.has(names(fc?.funcname as Node[] | undefined).join('.')) || args.length !== 2) return extraction;
  return guardedArrow(op, { ...operand, value: args[0]! }, args[1]!);
}
