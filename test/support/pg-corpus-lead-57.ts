/**
 * Corpus statements of session 57 (issue 25, lead): a NULL of numeric inside arithmetic. DuckDB's decimal
 * operators type `NULL::numeric * 2` as a NULL of no type, and a NULL parameter value rebinds the statement
 * with the parameter as that constant, so a division over it was an integer division
 * (`coalesce($1::numeric * 2, 7) / 2` answered 3, PostgreSQL 3.5000000000000000) and pg_typeof said "null".
 * `LEAD_57` must be PostgreSQL's answer (never refused, never excused); `LEAD_57_PARAMS` the same with
 * parameters bound as untyped text.
 */
export const LEAD_57 = [
  'select coalesce(null::numeric * 2, 7) / 2 as a, coalesce(-(null::numeric), 7) / 2 as b, coalesce(abs(null::numeric), 7) / 2 as c',
  'select coalesce(round(null::numeric, 1), 7) / 2 as a, coalesce(null::numeric % 2, 9) / 4 as b, coalesce(null::numeric(5,2) + 1, 3) / 2 as c',
  'select order_id, coalesce(null::numeric * qty, 7) / 2, pg_typeof(null::numeric * qty) from sales.orders order by order_id limit 3',
  'select pg_typeof(null::numeric + 1) a, pg_typeof(abs(null::numeric)) b, pg_typeof(null::numeric(5,2) * 2)::text c, pg_typeof(null::numeric) d',
];

export const LEAD_57_PARAMS: ReadonlyArray<{ sql: string; params: (string | null)[] }> = [
  { sql: 'select coalesce($1::numeric * 2, 7) / 2 as a', params: [null] },
  { sql: 'select coalesce($1::numeric * 2, 7) / 2 as a', params: ['1.5'] },
  {
    sql: 'select coalesce(round($1::numeric, 1), 7) / 2 a, coalesce(-$1::numeric, 7) / 2 b, coalesce(abs($1::numeric), 7) / 2 c, coalesce($1::numeric % 2, 7) / 2 d',
    params: [null],
  },
  {
    sql: 'select order_id, coalesce($1::numeric * qty, 7) / 2 from sales.orders order by order_id limit 3',
    params: [null],
  },
];
