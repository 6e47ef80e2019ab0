/**
 * Corpus statements of session 41: a float cast to numeric without a typmod (`sum(x)::numeric`,
 * `CAST(x AS numeric)`, `x::decimal`, as BI tools write them), PostgreSQL 15's float8_numeric (15
 * significant digits, float4 6) at each value's own scale; they were refused. `amount` is numeric(12,2)
 * in the fixture, so the floats are made with `::float8`/`::float4`. Never excused by a documented row;
 * `REVIEW_17_ANSWERED` never refused either (pg-corpus.test.ts `MUST_ANSWER`).
 */
export const REVIEW_17_ANSWERED = [
  // per row, text and binary; float4; NULL
  'select order_id, amount::float8::numeric from sales.orders order by order_id',
  'select order_id, (qty::float8 / 3)::numeric, cast(qty::float8 / 7 as numeric), (amount::float8 / 9)::decimal from sales.orders order by order_id',
  // (float4 / 3 is float8 in PostgreSQL, float4 in DuckDB: the operands are both float4 here)
  'select order_id, amount::float4::numeric, (qty::float4 / 3::float4)::numeric, (amount::float4 * 1000::float4)::numeric from sales.orders order by order_id',
  'select order_id, (case when qty > 2 then amount::float8 end)::numeric from sales.orders order by order_id',
  'select null::float8::numeric, cast(null::float4 as numeric)',
  // aggregates: Metabase's and Superset's casts of a float sum
  'select status, sum(amount::float8)::numeric from sales.orders group by status order by status',
  'SELECT "status", CAST(sum("amount"::float8) AS numeric) AS "sum" FROM sales.orders GROUP BY 1 ORDER BY 1',
  'select sum(amount::float8)::numeric, avg(qty::float8)::numeric, sum(amount::float4)::numeric from sales.orders',
  'select round(sum(amount::float8)::numeric, 2), round(avg(amount::float8)::numeric, 4) from sales.orders',
  'select status, avg(amount::float8)::numeric(10,2), sum(amount::float8)::numeric(12,1) from sales.orders group by status order by 1',
  // values needing an exponent in %g, ties at the 15th digit (half to even), special values
  'select 1e-7::float8::numeric, 1e20::float8::numeric, 1.5e-5::float8::numeric, 1e-7::float4::numeric, 1e20::float4::numeric',
  "select '1e22'::float8::numeric, '1.5e300'::float8::numeric, '-2.5e-300'::float8::numeric, '3.4e38'::float4::numeric",
  'select 1000000000000005::float8::numeric, 1000000000000015::float8::numeric, (0.1::float8 + 0.2::float8)::numeric, 16777217::float4::numeric',
  "select 'NaN'::float8::numeric, 'Infinity'::float8::numeric, '-Infinity'::float4::numeric, (-0.0)::float8::numeric",
  'select order_id, (amount::float8 * 1e-9)::numeric, (amount::float8 * 1e18)::numeric from sales.orders order by order_id',
  // ordered and deduplicated by the numeric: 0.1 + 0.2 and 0.3 are one value
  'select distinct (qty::float8 / 10 + 0.2::float8)::numeric from sales.orders order by 1',
  'select (qty::float8 / 2)::numeric as h, count(*) from sales.orders group by 1 order by h desc',
  'select (qty::float8 / 2)::numeric, count(*) from sales.orders group by (qty::float8 / 2)::numeric order by 1',
  // a GROUP BY expression spelled as a shown item (it answered 42803 for every such item)
  'select status, coalesce(amount, 0.5) from sales.orders group by status, coalesce(amount, 0.5) order by 1, 2',
  'select status::varchar(3), count(*) from sales.orders group by status::varchar(3) order by 1',
  // in WHERE and ORDER BY (one scale per column there: the value is what is compared)
  'select order_id from sales.orders where amount::float8::numeric > 100 order by order_id',
  'select count(*) from sales.orders where (qty::float8 / 3)::numeric = 1',
  'select order_id, qty from sales.orders order by (qty::float8 / 3)::numeric desc, order_id',
];

/** Inside an expression, where DECIMAL(38,16) cannot hold PostgreSQL's value: refused with a hint. */
export const REVIEW_17_REFUSED = [
  'select order_id, (qty::float8 / 3000)::numeric * 2 from sales.orders order by order_id',
  "select 'NaN'::float8::numeric + 1",
  'select 1e22::float8::numeric * 1',
];

export const REVIEW_17 = [...REVIEW_17_ANSWERED, ...REVIEW_17_REFUSED];

/**
 * Inside an expression or a subquery a float's numeric keeps one scale per column, 16 (docs/compatibility.md
 * "Differential corpus: documented differences"): the values are PostgreSQL's, padded with zeros.
 */
export const REVIEW_17_DOCUMENTED = [
  'select order_id, amount::float8::numeric * 2 from sales.orders order by order_id',
  'select x from (select amount::float8::numeric as x from sales.orders) s order by 1',
];
