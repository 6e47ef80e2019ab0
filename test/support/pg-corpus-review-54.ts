/**
 * Corpus statements of session 54 (issue 25, helper s54-floats): silent differences last session's new-user
 * review found. `REVIEW_54` must be PostgreSQL's answer or its error with PostgreSQL's SQLSTATE (never
 * refused, never excused): float8/float4 overflow and underflow (22003, where DuckDB answered Infinity or 0);
 * trunc(float, n), which PostgreSQL does not have (42883).
 */
export const REVIEW_54 = [
  // float8 and float4 overflow and underflow, as float.c's checks (22003); Infinity and NaN operands pass
  'select 1e300::float8 * 1e10',
  'select exp(1000)',
  'select power(10::float8, 400)',
  'select 1e308::float8 + 1e308::float8',
  'select -1e308::float8 - 1e308::float8',
  'select 1e-300::float8 * 1e-300::float8',
  'select 1e-300::float8 / 1e300::float8',
  'select 1e300::float8 / 1e-300::float8',
  'select 3e38::real * 10::real',
  'select 3e38::real + 3e38::real',
  'select 1e-30::real * 1e-30::real',
  'select 3e38::real * 10',
  "select 'Infinity'::float8 * 2, '-Infinity'::float8 + 1, 'NaN'::float8 * 0, 'NaN'::float8 + 1e308::float8",
  "select 1::float8 / 'Infinity'::float8, 'Infinity'::float8 / 2, 1e308::float8 * 0",
  "select exp(-1000), exp(-1000::float8), exp('-Infinity'::float8), exp('Infinity'::float8)",
  "select power(10::float8, -400), power(0::float8, 400), power('Infinity'::float8, 2), 10::float8 ^ 400",
  'select 2 ^ 1024',
  // sum's float8pl at each row; over a window, with a filter; an infinite row passes
  'select sum(x) from (values (1e308::float8), (1e308::float8)) v(x)',
  'select sum(x) over (order by x) from (values (1e308::float8), (1e308::float8)) v(x)',
  'select sum(x) filter (where x > 0) from (values (1e308::float8), (1e308::float8), (-1::float8)) v(x)',
  "select sum(x) from (values (1e308::float8), ('Infinity'::float8)) v(x)",
  'select sum(x), sum(x) / count(*) from (values (1e307::float8), (2e307::float8)) v(x)',
  'select sum(x) * 10 from (values (1e307::float8), (2e307::float8)) v(x)',
  // no constant in the text: the rewrite's pre-check must see `*` and `+` between names
  "select x * y, x + y from (values ('1e300'::float8, '1e300'::float8)) v(x, y)",
  "select x * y from (values ('1e-300'::float8, '1e-300'::float8)) v(x, y)",
  // rows, nested trees, a typed minus, columns beside aggregates and subqueries
  'select x * 1e300::float8 from (values (1::float8), (1e10::float8)) v(x) order by 1',
  'select (x * 1e200::float8) * 1e200::float8 from (values (1::float8)) v(x)',
  'select x * y - z from (values (1e300::float8, 1e300::float8, 1::float8)) v(x, y, z)',
  'select x - y from (values (1e308::float8, -1e308::float8)) v(x, y)',
  'select x - y, x + y - x from (values (1e308::float8, 1e308::float8)) v(x, y)',
  'select x * y * z from (values (1e-200::float8, 1e-200::float8, 1e10::float8)) v(x, y, z)',
  'select (x - y) * z, x * 0 from (values (1e-200::float8, 1e-200::float8, 1e-200::float8)) v(x, y, z)',
  'select qty * 1e308::float8 * 10::float8 from sales.orders order by order_id limit 1',
  'select exp(qty * 1000) from sales.orders order by order_id limit 1',
  'select qty * 2 + 1, qty - 1, amount * 2, amount::float8 * qty, amount::float8 / 3 - qty from sales.orders order by order_id limit 3',
  'select sum(qty) * 10, count(*) * 1.5, avg(amount) * 2, sum(amount) / count(*) * 2, max(amount::float8) * 1e306::float8 from sales.orders',
  'select status, sum(qty::float8) * 1e307::float8 from sales.orders group by status order by 1',
  'select order_id, amount * 2 - qty, (select max(qty) * 2 from sales.orders o2 where o2.customer_id = o.customer_id) from sales.orders o order by 1 limit 3',
  "select interval '1 day' * 2 + interval '1 hour', date '2024-01-01' + 3 - 1",
  // trunc(double precision, integer) and trunc(real, integer) do not exist (42883); trunc(numeric, n) does
  'select trunc(2.567::float8, 1)',
  'select trunc(2.567::real, 1)',
  'select order_id, trunc(amount::float8 / 3, 2) from sales.orders order by order_id limit 2',
  'select trunc(2.567, 1), trunc(amount, 1), trunc(-2.5::float8) from sales.orders order by order_id limit 2',
];
