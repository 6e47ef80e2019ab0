/**
 * format_type(oid, typmod) as one lookup of the type's name by OID and constant cases by OID around it.
 * The lookup is a scalar subquery correlated on the OID alone, which DuckDB plans as one hash join; a
 * body that also read typmod inside the subquery (as this one did) was planned as a correlated join on
 * both arguments with a grouping of their distinct pairs, 2–4 ms of DuckDB time per statement calling it.
 * Which types take a modifier, and how, follows PostgreSQL 15 (test/catalog-format-type.test.ts compares
 * every type): an array of a type with a modifier shows it before `[]`; other arrays and the types listed
 * in NO_MODIFIER show none. Long OID lists are `list_contains` of a constant list: DuckDB plans a long
 * `IN (…)` as a join. Its texts are joined by the built-in `||` (sql-literals.ts `joined`): type names and
 * numbers, never a client's text.
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
 * The types whose modifier PostgreSQL prints in its own spelling: [OID, least typmod shown, the name with it].
 * An array of one prints the element's spelling with `[]` after it (`timestamp(3) without time zone[]`).
 */
const MODIFIED: ReadonlyArray<readonly [number, number, string[]]> = [
  [1700, 4, ["'numeric'", ...NUMERIC_MOD]],
  [1043, 5, ["'character varying'", ...LENGTH_MOD]],
  [1042, 5, ["'character'", ...LENGTH_MOD]],
  [1114, 0, ["'timestamp'", ...PLAIN_MOD, "' without time zone'"]],
  [1184, 0, ["'timestamp'", ...PLAIN_MOD, "' with time zone'"]],
  [1083, 0, ["'time'", ...PLAIN_MOD, "' without time zone'"]],
  [1266, 0, ["'time'", ...PLAIN_MOD, "' with time zone'"]],
  [1560, 0, ["'bit'", ...PLAIN_MOD]],
  [1562, 0, ["'bit varying'", ...PLAIN_MOD]],
];

/** With a typmod of -1 given, PostgreSQL names bpchar and bit by their type names (bit quoted: a keyword). */
const UNMODIFIED: ReadonlyArray<readonly [number, string]> = [
  [1042, 'bpchar'],
  [1560, '"bit"'],
];

const cases = [
  ...MODIFIED.flatMap(([oid, least, spelled]) => [
    `WHEN typmod >= ${least} AND oid = ${oid} THEN ${joined(...spelled)}`,
    ...arrayOf(oid).map((a) => `WHEN typmod >= ${least} AND oid = ${a} THEN ${joined(...spelled, "'[]'")}`),
  ]),
  ...UNMODIFIED.flatMap(([oid, name]) => [
    `WHEN typmod < 0 AND oid = ${oid} THEN ${lit(name)}`,
    ...arrayOf(oid).map((a) => `WHEN typmod < 0 AND oid = ${a} THEN ${lit(`${name}[]`)}`),
  ]),
];

export const FORMAT_TYPE_BODY = `CASE WHEN oid IS NULL THEN NULL WHEN oid = 0 THEN '-'
  ${cases.join('\n  ')}
  ELSE coalesce(${joined(
    `(SELECT t.fmt FROM ${C}_types t WHERE t.oid = CAST(oid AS BIGINT))`,
    `CASE WHEN typmod IS NULL OR typmod < 0 OR list_contains([${list([...NO_MODIFIER, ...ARRAYS.map((t) => Number(t[OID]))])}], oid) THEN '' ELSE ${joined(...PLAIN_MOD)} END`,
  )}, '???') END`;
