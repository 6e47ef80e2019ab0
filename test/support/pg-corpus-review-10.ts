/**
 * Corpus statements from the tenth review of issue 25 (session 39): silent wrong answers a new user
 * found, each now PostgreSQL's answer or a refusal with a precise SQLSTATE and a hint; never excused
 * by a documented row. Each answered differently before its fix.
 */
/** A jsonb and a json value to read keys of. */
const J = `(select cast('{"k": "a", "n": "5", "o": {"p": [1, 2]}}' as jsonb) as j, cast('{"k": null}' as json) as h) t`;

export const REVIEW_10 = [
  // numeric without a typmod combined with a fraction: DuckDB's common type of DECIMAL(38,0) rounded the fraction away
  'select sum(x) from (values (1::numeric),(2.75),(3.5)) v(x)',
  'select x from (select 1::numeric union all select 2.5) v(x) where x > 2',
  'select count(*) from sales.orders where qty::numeric = any(array[7.5])',
  'select count(*) from sales.orders where coalesce(nullif(qty, 7)::numeric, 0.75) < 1',
  'select sum(greatest(qty::numeric, 2.5)), sum(least(qty::numeric, 2.5)), sum(least(order_id::numeric, 0.5)) from sales.orders',
  'select sum(case when qty > 3 then qty::numeric else 0.25 end) from sales.orders',
  'select (array[1::numeric, 2.5])[2], array[1::numeric, 2.5] = array[1.0, 2.5], 1::numeric in (1.5, 2)',
  'select status, round(case when count(*) = 0 then 0::numeric else sum(qty) / count(*)::numeric end, 2) from sales.orders group by 1 order by 1',
  // = ANY / <> ALL with NULL elements: PostgreSQL's three values (list_contains skipped the NULLs)
  'select 1 = any(array[2, null]), 2 = any(array[2, null]), 1 <> all(array[2, null]), 2 <> all(array[2, null])',
  'select count(*) from sales.orders where customer_id <> all(array[2, null]::bigint[])',
  'select count(*) from sales.orders where not (customer_id = any(array[2, null]))',
  'select null::int = any(array[1]), null::int = any(array[]::int[]), 1 = any(null::int[]), 1 <> all(array[]::int[])',
  // a float cast to numeric(p, s): PostgreSQL rounds the float's 15-digit text (DuckDB the binary value)
  'select 1.005::float8::numeric(6,2), 2.675::float8::numeric(6,2), 1.005::float8::decimal(6,2)',
  'select (qty * 1.005::float8)::numeric(10,2), (amount::float8 * 1.5)::numeric(12,2) from sales.orders order by order_id limit 20',
  // `->`/`->>` printed bare: DuckDB parses the arrows with other precedences (`j -> 'k' IS NULL` as json_extract(JSON, BOOLEAN))
  `select j -> 'k' is null, j -> 'o' is not null, j ->> 'k' is null, h -> 'k' is null, h ->> 'k' is null from ${J}`,
  `select (j ->> 'n')::int + 1, (j ->> 'n')::int * 2 - 1, j -> 'o' -> 'p' ->> 1, j -> 'o' -> 'p' -> 0 is null from ${J}`,
  `select count(*) from sales.orders o, ${J} where j ->> 'k' is not null and h -> 'k' is not null`,
  // string_to_array / split_part edge cases: '' splits to {}, an empty delimiter keeps the whole string, field 0 is 22023
  "select string_to_array('', ','), string_to_array('abc', ''), string_to_array('a,b', null), string_to_array(null, ',') is null, string_to_array('a,b,,c', ',')",
  "select split_part('abc', '', 1), split_part('abc', '', -1), split_part('abc', '', 2), split_part('a,b,c', ',', -1), split_part('a,b,c', ',', 5)",
  "select split_part(status, '', 1), string_to_array(status, '') from sales.orders order by order_id limit 2",
  "select split_part('a,b', ',', 0)",
  "select split_part(status, 'e', qty - 2) from sales.orders order by order_id limit 3",
  // a date with a trailing BC: DuckDB's reader ignored it (4713 AD) and reads only `(BC)`
  "select '4713-01-01 BC'::date, date '0044-03-15 BC', '0044-03-15 bc'::date < '0001-01-01'::date",
  "select cast('4713-11-24 BC' as date) + 1, '2024-01-01 AD'::date",
  // to_json of a value: PostgreSQL's JSON text (a timestamp with a `T`, a numeric with its scale)
  "select to_json(timestamp '2024-01-21 01:04'), to_json(ordered_at), to_json(amount), to_json(1.50), to_json(null::timestamp) is null from sales.orders order by order_id limit 2",
  "select to_json(timestamptz '2024-01-21 01:04:00+00'), to_json(interval '1 day'), to_json('a\"b'::text)",
  // SELECT * over JOIN … USING: the USING columns first, as PostgreSQL; NATURAL and FULL … USING refused with a hint
  'select * from sales.orders o join sales.customers c using (customer_id) order by order_id limit 2',
  'select * from sales.orders left join sales.customers using (customer_id) order by order_id limit 2',
  'select * from sales.orders full join sales.customers using (customer_id) order by order_id limit 2',
  'select * from sales.orders natural join sales.customers order by order_id limit 2',
  // a string literal beside an integer is read as an integer, as PostgreSQL (DuckDB's cast rounded '7.5' to 8)
  "select count(*) from sales.orders where qty = any('{7.5}')",
  "select coalesce(case when qty > 100 then qty end, 'n/a') from sales.orders order by order_id limit 2",
  "select coalesce(case when qty > 100 then customer_id end, '2.5') from sales.orders limit 1",
  // extract(year) of a BC date: PostgreSQL has no year 0 (44 BC is -44; DuckDB's astronomical year was -43)
  "select extract(year from '0044-03-15 BC'::date), extract(year from date '0001-12-31 BC'), extract(year from date '0001-01-01'), extract(year from ordered_at) from sales.orders order by order_id limit 1",
  "select extract(year from max(ordered_at)), extract(years from date '2024-01-01' - 800000) from sales.orders",
];

/** Review findings still answered differently: each matches a documented difference (docs/compatibility.md). */
export const REVIEW_10_DOCUMENTED = [
  `select '{"n": 1.50}'::json ->> 'n', '{"big": 12345678901234567890.5}'::json ->> 'big', '{"n": 1.50}'::jsonb ->> 'n', '{"n": 1.50}'::json -> 'n'`,
];
