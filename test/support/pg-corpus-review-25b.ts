/**
 * Corpus statements of session 48 (issue 25, part B): silent differences a new user's review found.
 * `REVIEW_25B` must be PostgreSQL's answer or its error with PostgreSQL's SQLSTATE (never refused, never
 * excused); `REVIEW_25B_REFUSED` 0A000/42883 with a hint where the gateway cannot give PostgreSQL's answer.
 */
export const REVIEW_25B = [
  // GROUPING() inside CASE, the "Total" row of a ROLLUP (42725 from the scale dispatch's overloads; new-user review, session 48)
  "select case when grouping(status) = 1 then 'Total' else status end as s, sum(qty) from sales.orders group by rollup(status) order by 1",
  "select case grouping(status) when 1 then 'T' else status end as s from sales.orders group by rollup(status) order by 1",
  'select case when grouping(status) = 1 then 0 else count(*) end as n from sales.orders group by rollup(status) order by 1',
  // to_char of an aggregate's or a window's value (42725: the strftime guard's two overloads; new-user review, session 48)
  "select to_char(max(ordered_at), 'YYYY-MM-DD HH24:MI') from sales.orders",
  "select status, to_char(max(ordered_at), 'DD Mon YYYY') from sales.orders group by 1 order by 1",
  "select to_char(min(signup), 'YYYY-MM') from sales.customers",
  "select order_id, to_char(lag(ordered_at) over (order by order_id), 'YYYY-MM FMDDth') from sales.orders order by order_id limit 5",
  "select to_char(date_trunc('month', max(ordered_at)), 'YYYY-MM') from sales.orders",
  "select to_char(min(ordered_at)::date, 'YYYY-MM-DD IW Dy') from sales.orders",
  // avg(x) * b, avg(x) ± b, b - avg(x) as an item: on avg's own numeric (PostgreSQL's 16 decimals, it showed 20)
  'select avg(qty)*3 from sales.orders',
  'select avg(qty)+1 from sales.orders',
  'select 3*avg(qty), 1+avg(qty), 10-avg(qty), avg(qty)-10 from sales.orders',
  'select avg(amount)*2, avg(amount)+1, avg(amount)*1.5, avg(amount) - 0.001 from sales.orders',
  'select status, avg(qty)*100 from sales.orders group by status order by 2, 1',
  'select avg(qty)*amount from sales.orders group by amount order by 1 limit 3',
  'select avg(distinct qty) - 1, avg(qty) filter (where qty > 2) * 2 from sales.orders',
  'select status, avg(qty) * count(*) from sales.orders group by status order by 2 desc',
  'select avg(qty) filter (where qty > 100) * 2 from sales.orders',
  // a set operation's untyped literal takes the type of the other branches' constants (it was text)
  "select 1 union select '2'",
  "select 1 union all select '2' union all select null order by 1",
  "select '2' union select 1 order by 1",
  "select 1, 'a' union select '2', 'b' order by 1",
  "select 1 union select 'x'",
  "select true union select 'f' order by 1",
  "select 1 as n union select '2' order by n",
  "select * from (select 1 union select '2') t(x) order by 1",
  "select 1.5 union select '2.5' order by 1",
  "select date '2024-01-01' union select '2024-01-02' order by 1",
  "select name from sales.customers union select 'x' order by 1 limit 3",
  // pg_typeof of an untyped literal is unknown (it was text, and "null" for NULL)
  'select pg_typeof(null)',
  "select pg_typeof('a'), pg_typeof(1), pg_typeof(1.5), pg_typeof('a'::text), pg_typeof(null::int)",
  "select pg_typeof(null)::text, pg_typeof('x')::text = 'unknown'",
  // width_bucket with a NaN or an infinite bound: PostgreSQL's 2201G (it answered 1, or 22003)
  "select width_bucket(5, 0, 'infinity'::float8, 10)",
  "select width_bucket(5, '-infinity'::float8, 10, 10)",
  "select width_bucket('nan'::float8, 0, 10, 5)",
  "select width_bucket(5, 'nan'::float8, 10, 5)",
  "select width_bucket('infinity'::float8, 0, 10, 5), width_bucket(amount, 0, 500, 4) from sales.orders order by order_id limit 3",
  // a bit-string constant cast to an integer, as bittoint4/bittoint8 (it was 22P02); wider than the integer 22003
  "select x'ff'::int",
  "select x'ffffffff'::int, x'7f'::bigint, b'101'::int4, X'FF'::integer",
  "select x'1ffffffff'::int",
];

/** Refused 0A000/42883 with a hint (PostgreSQL answers them; the gateway cannot give the same text or type). */
export const REVIEW_25B_REFUSED = [
  // numeric constants or casts of different scales in one column of a set operation (DuckDB pads them to one scale)
  'select 1.5 union select 2.25',
  'select 1.5 union all select 2.25 order by 1',
  'select 1 union select 2.5',
  "select 1.5 union select '2.25' order by 1",
  'select qty::numeric(5,1) from sales.orders union select 2.25 order by 1',
  // bit strings: DuckDB's BIT prints and converts differently, B'…' was the text b101, varbit 42704
  'select 255::bit(8)',
  "select B'101'",
  "select '101'::varbit",
  'select 5::bit(3)',
  // ISO week-date input (it read IYYY as literal text: 22007)
  "select to_date('2024-10-3','IYYY-IW-ID')",
  "select to_date('2024 10','IYYY IW')",
  "select to_timestamp('2024-10-3 10:00','IYYY-IW-ID HH24:MI')",
];
