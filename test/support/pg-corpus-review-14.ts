/**
 * Corpus statements from the new-user review of session 40 (ORMs and analysts over the demo): each
 * differed from PostgreSQL 15 or failed on the code before its fix; never excused by a documented row.
 */
export const REVIEW_14 = [
  // to_char's TM prefix: the C locale's names, unpadded (was `T01on`, and 'TMMonth' refused on "th")
  "select to_char(ordered_at, 'TMMon') from sales.orders order by order_id limit 3",
  "select to_char(ordered_at, 'TMMonth YYYY') as m, count(*) from sales.orders group by 1 order by 1",
  "select to_char(ordered_at, 'TMMonth|TMMONTH|TMmonth|TMMon|TMMON|TMmon|TMDay|TMDAY|TMday|TMDy|TMDY|TMdy|tmMonth|TMYYYY|TMHH24') from sales.orders order by order_id limit 3",
  "select to_date('March 05 2024', 'TMMonth DD YYYY'), to_timestamp('05 mar 2024 10', 'DD TMMon YYYY HH24')",
  // a float aggregate as json_build_object's value (DuckDB: "Macro text() has multiple overloads")
  "select json_build_object('sum', sum(qty::float8)) from sales.orders",
  "select json_build_object('mx', max(amount::float8), 'mn', min(qty::float4), 'n', count(*)) from sales.orders",
  "select status, json_build_object('mean', avg(qty::float8), 'n', count(*)) from sales.orders group by status order by status",
  "select json_build_object('avg', avg(qty::float8)), json_build_object('mx', max(amount::float8)) from sales.orders",
  // a sign apart from its number in interval input (was 22P02)
  "select interval '1 month - 1 day', interval '1 day - 1 second', interval '- 1 day', interval '1 day - 1:00'",
  "select '1 year - 2 months'::interval, interval '1 month - 1 day - 1 hour', ordered_at + interval '1 month - 1 day' from sales.orders order by order_id limit 2",
  // round's places as a cast constant (SQLAlchemy's `$1::INTEGER`, written in at Bind): a float cast to numeric was refused
  'select round(cast(avg(amount::float8) as numeric), 2::integer), round(amount::float8::numeric, cast(1 as integer)) from sales.orders group by amount order by 2 limit 3',
  // functions analysts use that DuckDB lacks, composed with PostgreSQL's rules (were 42883 or 0A000)
  "select order_id, overlay(status placing 'X' from 2), overlay(status placing 'ab' from 1 for 0), overlay(name, '*', 3, 2) from sales.orders join sales.customers using (customer_id) order by order_id limit 4",
  "select overlay('abcdef' placing 'XY' from 10), overlay('abcdef' placing 'XY' from 2 for -1), overlay('abcdef' placing null from 2)",
  "select overlay('abcdef' placing 'XY' from 0)",
  'select make_interval(days => 3, hours => 2), make_interval(1, 2), make_interval(), make_interval(0, 0, 1, 2, 3, 4, 5.5), make_interval(secs => 1.2345678)',
  'select order_id, make_interval(days => qty, hours => order_id::int), ordered_at + make_interval(mins => qty) from sales.orders order by order_id limit 4',
  "select format('%5s|%-5s|%3s|%-3L|%5I|', 'ab', null, 'abcdef', 'x', 'Ab'), format('%-10s|%4s|', status, qty) from sales.orders order by order_id limit 3",
  "select json_build_array(), json_build_array(1, 2.50, 'a', null, true, date '2024-01-02')",
  'select json_build_array(order_id, amount, ordered_at, status, qty > 2) from sales.orders order by order_id limit 3',
  'select json_object_agg(status, n order by status) from (select status, count(*) as n from sales.orders group by 1) s',
  'select status, json_object_agg(order_id, amount order by order_id) filter (where qty > 1) from sales.orders group by status order by 1',
  'select json_object_agg(k, v) from (values (null::text, 1)) t(k, v)',
];
