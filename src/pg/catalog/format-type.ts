/**
 * format_type(oid, typmod) as one lookup of the type's name by OID and constant cases by OID around it.
 * The lookup is a scalar subquery correlated on the OID alone, which DuckDB plans as one hash join; a
 * body that also read typmod inside the subquery (as this one did) was planned as a correlated join on
 * both arguments with a grouping of their distinct pairs, 2–4 ms of DuckDB time per statement calling it.
 * Which types take a modifier, and how, follows PostgreSQL's format_type (format_type.c): an array of a
 * type with a modifier shows it before `[]`; other arrays and the types listed in NO_MODIFIER show none.
 * Long OID lists are `list_contains` of a constant list: DuckDB plans a long `IN (…)` as a join.
 */
import { PG_TYPES } from './pg-data.js';
import { C } from './names.js';
import { lit } from './sql-literals.js';

const OID = 0;
const TYPCATEGORY = 5;
const TYPELEM = 8;
const TYPSTORAGE = 18;
const FMT = 21;

/** Arrays PostgreSQL prints as `elem[]` (int2vector and oidvector are arrays with plain storage, named by themselves). */
const ARRAYS = PG_TYPES.filter((t) => t[TYPCATEGORY] === 'A' && t[TYPSTORAGE] !== 'p');
const arrayOf = (elem: number) => ARRAYS.filter((t) => Number(t[TYPELEM]) === elem).map((t) => Number(t[OID]));
const fmtOf = (oid: number) => String(PG_TYPES.find((t) => Number(t[OID]) === oid)?.[FMT]);
const list = (oids: readonly number[]) => (oids.length === 0 ? '-1' : oids.join(', '));

/** Types whose modifier format_type never shows (they print their modifier as typmod - 4 or not at all). */
const NO_MODIFIER = [16, 20, 21, 23, 700, 701, 1043, 1042, 1700, 1186];

/** `(p,s)` of a numeric typmod; `(n)` of a character typmod. */
const NUMERIC_MOD = `'(' || ((typmod - 4) // 65536) || ',' || ((typmod - 4) % 65536) || ')'`;
const LENGTH_MOD = `'(' || (typmod - 4) || ')'`;
const ARRAY_OF_NUMERIC = arrayOf(1700);
const ARRAY_OF_CHAR = [...arrayOf(1043), ...arrayOf(1042)];

export const FORMAT_TYPE_BODY = `CASE WHEN oid IS NULL THEN NULL WHEN oid = 0 THEN '-'
  WHEN typmod >= 4 AND oid = 1700 THEN 'numeric' || ${NUMERIC_MOD}
  WHEN typmod >= 4 AND oid = 1043 THEN 'character varying' || ${LENGTH_MOD}
  WHEN typmod >= 4 AND oid = 1042 THEN 'character' || ${LENGTH_MOD}
  WHEN typmod >= 4 AND oid IN (${list(ARRAY_OF_NUMERIC)}) THEN 'numeric' || ${NUMERIC_MOD} || '[]'
  ${ARRAY_OF_CHAR.map((a) => `WHEN typmod >= 4 AND oid = ${a} THEN ${lit(fmtOf(a).replace(/\[\]$/, ''))} || ${LENGTH_MOD} || '[]'`).join('\n  ')}
  WHEN typmod >= 0 AND oid = 1114 THEN 'timestamp(' || typmod || ') without time zone'
  WHEN typmod >= 0 AND oid = 1184 THEN 'timestamp(' || typmod || ') with time zone'
  WHEN typmod >= 0 AND oid = 1083 THEN 'time(' || typmod || ') without time zone'
  WHEN typmod >= 0 AND oid = 1266 THEN 'time(' || typmod || ') with time zone'
  WHEN typmod >= 0 AND oid = 1560 THEN 'bit(' || typmod || ')'
  WHEN typmod >= 0 AND oid = 1562 THEN 'bit varying(' || typmod || ')'
  ELSE coalesce((SELECT t.fmt FROM ${C}_types t WHERE t.oid = CAST(oid AS BIGINT))
    || CASE WHEN typmod IS NULL OR typmod < 0 OR list_contains([${list([...NO_MODIFIER, ...ARRAYS.map((t) => Number(t[OID]))])}], oid) THEN '' ELSE '(' || typmod || ')' END, '???') END`;
