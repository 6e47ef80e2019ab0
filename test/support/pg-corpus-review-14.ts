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
];
