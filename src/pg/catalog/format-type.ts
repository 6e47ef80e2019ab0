/**
 * format_type(oid, typmod) as one lookup of the type's formatting row by OID (`_type_formats`, filled once per
 * process: PostgreSQL's types never change) and one small CASE over that row and the typmod. The lookup is a
 * scalar subquery correlated on the OID alone, which DuckDB plans as one hash join, read in a lambda so it is
 * bound once: a body that also read typmod inside the subquery was planned as a correlated join on both
 * arguments with a grouping of their distinct pairs (2–4 ms of DuckDB time per statement calling it), and one
 * that spelled each modifier-taking OID as its own WHEN around the lookup (48 of them) cost twice the lookup's
 * time to bind and run (docs/performance.md, "Catalog speed, format_type as a row"). Which types take a
 * modifier, and how, follows PostgreSQL 15 (test/catalog-format-type.test.ts compares every type): an array of
 * a type with a modifier shows it before `[]`; other arrays and the types listed in NO_MODIFIER show none. Its
 * texts are joined by the built-in `||` (sql-literals.ts `joined`): type names and numbers, never a client's text.
 */
import { PG_TYPES } from './pg-data.js';
import { C } from './names.js';
import { joined, lit } from './sql-literals.js';

const OID = 0;
const TYPCATEGORY = 5;
const TYPELEM = 8;
const TYPSTORAGE = 18;

/** Arrays PostgreSQL prints as `elem[]` (int2vector and oidvector are arrays with plain storage, named by themselves). */
const ARRAYS = PG_TYPES.filter((t) => t[TYPCATEGORY] === 'A' && t[TYPSTORAGE] !== 'p');
const arrayOf = (elem: number) => ARRAYS.filter((t) => Number(t[TYPELEM]) === elem).map((t) => Number(t[OID]));
const list = (oids: readonly number[]) => (oids.length === 0 ? '-1' : oids.join(', '));

/** Types whose modifier format_type never shows (they print their modifier as typmod - 4 or not at all). */
const NO_MODIFIER = [16, 20, 21, 23, 700, 701, 1043, 1042, 1700, 1186];

/** `(p,s)` of a numeric typmod; `(n)` of a character typmod; `(n)` of a time or bit typmod. */
const NUMERIC_MOD = ["'('", '((typmod - 4) // 65536)', "','", '((typmod - 4) % 65536)', "')'"];
const LENGTH_MOD = ["'('", '(typmod - 4)', "')'"];
const PLAIN_MOD = ["'('", 'typmod', "')'"];

/**
 * The types whose modifier PostgreSQL prints in its own spelling: [OID, least typmod shown, the name before the
 * modifier, how the modifier prints, the words after it]. An array of one prints the element's spelling with `[]`
 * after it (`timestamp(3) without time zone[]`).
 */
const MODIFIED: ReadonlyArray<readonly [number, number, string, 'numeric' | 'length' | 'plain', string]> = [
  [1700, 4, 'numeric', 'numeric', ''],
  [1043, 5, 'character varying', 'length', ''],
  [1042, 5, 'character', 'length', ''],
  [1114, 0, 'timestamp', 'plain', ' without time zone'],
  [1184, 0, 'timestamp', 'plain', ' with time zone'],
  [1083, 0, 'time', 'plain', ' without time zone'],
  [1266, 0, 'time', 'plain', ' with time zone'],
  [1560, 0, 'bit', 'plain', ''],
  [1562, 0, 'bit varying', 'plain', ''],
];

/** With a typmod of -1 given, PostgreSQL names bpchar and bit by their type names (bit quoted: a keyword). */
const UNMODIFIED: ReadonlyArray<readonly [number, string]> = [
  [1042, 'bpchar'],
  [1560, '"bit"'],
];

/** Each modifier-taking type's (and its arrays') spelling of a shown modifier: [OID, least typmod, prefix, kind, suffix]. */
const MODIFIED_ROWS = MODIFIED.flatMap(([oid, least, prefix, kind, suffix]) =>
  [oid, ...arrayOf(oid)].map((o) => [o, least, prefix, kind, o === oid ? suffix : `${suffix}[]`]),
);

/** Each type's name with a typmod below zero where it is not its formatted name (bpchar, "bit" and their arrays). */
const UNMODIFIED_ROWS = UNMODIFIED.flatMap(([oid, name]) => [
  [oid, name] as const,
  ...arrayOf(oid).map((a) => [a, `${name}[]`] as const),
]);

/**
 * `_type_formats`: per type OID, everything format_type needs besides the typmod, as one struct named as no caller can name a column (a table filled
 * once per process from `_types`, whose rows are PostgreSQL's): `fmt` (the name shown without a modifier), `least`
 * (the least typmod shown in the type's own spelling: `prefix`, the modifier as `kind` prints it, `suffix`),
 * `unmodified` (the name shown for a typmod below zero, where not `fmt`) and `plain` (a typmod shown as `(n)`).
 */
export function typeFormatsStatement(): string {
  const values = (rows: ReadonlyArray<readonly unknown[]>) => rows.map((r) => `(${r.map(lit).join(', ')})`).join(', ');
  return `CREATE TABLE ${C}_type_formats AS SELECT t.oid, {'fmt': t.fmt, 'least': CAST(m.least AS INTEGER), 'prefix': m.prefix,
      'kind': m.kind, 'suffix': m.suffix, 'unmodified': u.unmodified,
      'plain': NOT list_contains([${list([...NO_MODIFIER, ...ARRAYS.map((t) => Number(t[OID]))])}], t.oid)} AS fdl_pg_format
    FROM ${C}_types t
      LEFT JOIN (VALUES ${values(MODIFIED_ROWS)}) m(oid, least, prefix, kind, suffix) ON m.oid = t.oid
      LEFT JOIN (VALUES ${values(UNMODIFIED_ROWS)}) u(oid, unmodified) ON u.oid = t.oid`;
}

const MODIFIER_TEXT = `CASE fdl_pg_f.kind WHEN 'numeric' THEN ${joined(...NUMERIC_MOD)} WHEN 'length' THEN ${joined(...LENGTH_MOD)} ELSE ${joined(...PLAIN_MOD)} END`;

// The type's row is looked up once, correlated on the OID alone, and read in a lambda with the typmod: a CASE per
// modifier-taking OID around the lookup (48 WHENs) cost more to bind and run than the lookup itself.
export const FORMAT_TYPE_BODY = `CASE WHEN oid IS NULL THEN NULL WHEN oid = 0 THEN '-'
  ELSE coalesce(list_transform([(SELECT t.fdl_pg_format FROM ${C}_type_formats t WHERE t.oid = CAST(oid AS BIGINT))], lambda fdl_pg_f: CASE
    WHEN typmod >= fdl_pg_f.least THEN ${joined('fdl_pg_f.prefix', MODIFIER_TEXT, 'fdl_pg_f.suffix')}
    WHEN typmod < 0 AND fdl_pg_f.unmodified IS NOT NULL THEN fdl_pg_f.unmodified
    ELSE ${joined('fdl_pg_f.fmt', `CASE WHEN typmod IS NULL OR typmod < 0 OR NOT fdl_pg_f.plain THEN '' ELSE ${joined(...PLAIN_MOD)} END`)} END)[1], '???') END`;
