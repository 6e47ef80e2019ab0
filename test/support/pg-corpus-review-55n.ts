/**
 * Corpus statements of session 55 (issue 25, helper s55-numbers): `to_number` with PostgreSQL 15's reading
 * of a numeric picture (pg/number-input.ts; before it kept the digits, '.' and '-' of the text and cast them:
 * `to_number('1,234', 'FM9,999')` was 1234, PostgreSQL's 123). `REVIEW_55N` must be PostgreSQL's answer or
 * its error with PostgreSQL's SQLSTATE (never refused, never excused): a table of texts × pictures (each
 * picture's texts PostgreSQL reads as rows of one statement, each text it refuses a statement of its own);
 * `REVIEW_55N_REFUSED` refused with a hint.
 */

/** Texts PostgreSQL reads, by picture: one statement a picture, the text a column. */
const READ = [
  "select n, v, to_number(v, '999') from (values (1, '123'), (2, '-1,234.5'), (3, '1,234.56'), (4, ' 42-'), (5, '+7'), (6, '<12>'), (7, '12.345'), (8, '0.5'), (9, '99999'), (10, '1 2 3'), (11, '.5-')) t(n, v) order by n",
  "select n, v, to_number(v, '9G999D99') from (values (1, '123'), (2, '-1,234.5'), (3, '1,234.56'), (4, ' 42-'), (5, '+7'), (6, '<12>'), (7, '12.345'), (8, '€5'), (9, '0.5'), (10, '1 2 3'), (11, '.5-')) t(n, v) order by n",
  "select n, v, to_number(v, 'FM9G999D99') from (values (1, '123'), (2, '-1,234.5'), (3, '1,234.56'), (4, ' 42-'), (5, '+7'), (6, '<12>'), (7, '12.345'), (8, '€5'), (9, '0.5'), (10, '1 2 3'), (11, '.5-')) t(n, v) order by n",
  "select n, v, to_number(v, 'S999D9') from (values (1, '123'), (2, ' 42-'), (3, '+7'), (4, '<12>'), (5, '12.345'), (6, '€5'), (7, '0.5'), (8, '1 2 3'), (9, '.5-')) t(n, v) order by n",
  "select n, v, to_number(v, '999MI') from (values (1, '123'), (2, '-1,234.5'), (3, '1,234.56'), (4, ' 42-'), (5, '+7'), (6, '<12>'), (7, '12.345'), (8, '0.5'), (9, '99999'), (10, '1 2 3'), (11, '.5-')) t(n, v) order by n",
  "select n, v, to_number(v, 'PL999') from (values (1, '123'), (2, '-1,234.5'), (3, '1,234.56'), (4, ' 42-'), (5, '+7'), (6, '<12>'), (7, '12.345'), (8, '€5'), (9, '0.5'), (10, '99999'), (11, '1 2 3'), (12, '.5-')) t(n, v) order by n",
  "select n, v, to_number(v, 'SG999') from (values (1, '123'), (2, '-1,234.5'), (3, '1,234.56'), (4, ' 42-'), (5, '+7'), (6, '<12>'), (7, '12.345'), (8, '€5'), (9, '0.5'), (10, '99999'), (11, '1 2 3'), (12, '.5-')) t(n, v) order by n",
  "select n, v, to_number(v, '99PR') from (values (1, '123'), (2, '-1,234.5'), (3, '1,234.56'), (4, ' 42-'), (5, '+7'), (6, '<12>'), (7, '12.345'), (8, '0.5'), (9, '99999'), (10, '1 2 3'), (11, '.5-')) t(n, v) order by n",
  "select n, v, to_number(v, 'L999') from (values (1, '123'), (2, '-1,234.5'), (3, '1,234.56'), (4, ' 42-'), (5, '+7'), (6, '<12>'), (7, '12.345'), (8, '€5'), (9, '0.5'), (10, '99999'), (11, '1 2 3'), (12, '.5-')) t(n, v) order by n",
  "select n, v, to_number(v, '9,999.99') from (values (1, '123'), (2, '-1,234.5'), (3, '1,234.56'), (4, ' 42-'), (5, '+7'), (6, '<12>'), (7, '12.345'), (8, '€5'), (9, '0.5'), (10, '1 2 3'), (11, '.5-')) t(n, v) order by n",
  "select n, v, to_number(v, '0000') from (values (1, '123'), (2, '-1,234.5'), (3, '1,234.56'), (4, ' 42-'), (5, '+7'), (6, '<12>'), (7, '12.345'), (8, '€5'), (9, '0.5'), (10, '99999'), (11, '1 2 3'), (12, '.5-')) t(n, v) order by n",
  "select n, v, to_number(v, '\"x\"999') from (values (1, '123'), (2, '-1,234.5'), (3, '1,234.56'), (4, ' 42-'), (5, '+7'), (6, '<12>'), (7, '12.345'), (8, '€5'), (9, '0.5'), (10, '99999'), (11, '1 2 3'), (12, '.5-')) t(n, v) order by n",
  "select n, v, to_number(v, '999th') from (values (1, '123'), (2, '-1,234.5'), (3, '1,234.56'), (4, ' 42-'), (5, '+7'), (6, '<12>'), (7, '12.345'), (8, '0.5'), (9, '99999'), (10, '1 2 3'), (11, '.5-')) t(n, v) order by n",
  "select n, v, to_number(v, '99.9S') from (values (1, ' 42-'), (2, '+7'), (3, '<12>'), (4, '12.345'), (5, '€5'), (6, '0.5'), (7, '.5-')) t(n, v) order by n",
  "select n, v, to_number(v, 'FM990.00') from (values (1, '123'), (2, ' 42-'), (3, '+7'), (4, '<12>'), (5, '12.345'), (6, '€5'), (7, '0.5'), (8, '1 2 3'), (9, '.5-')) t(n, v) order by n",
];

/** Texts PostgreSQL refuses (22P02 no digit read, 22003 more integer digits than the picture has). */
const REFUSED_BY_POSTGRESQL = [
  "select to_number('€5', '999')",
  "select to_number('99999', '9G999D99')",
  "select to_number('99999', 'FM9G999D99')",
  "select to_number('-1,234.5', 'S999D9')",
  "select to_number('1,234.56', 'S999D9')",
  "select to_number('99999', 'S999D9')",
  "select to_number('€5', '999MI')",
  "select to_number('€5', '99PR')",
  "select to_number('99999', '9,999.99')",
  "select to_number('€5', '999th')",
  "select to_number('123', '99.9S')",
  "select to_number('-1,234.5', '99.9S')",
  "select to_number('1,234.56', '99.9S')",
  "select to_number('99999', '99.9S')",
  "select to_number('1 2 3', '99.9S')",
  "select to_number('-1,234.5', 'FM990.00')",
  "select to_number('1,234.56', 'FM990.00')",
  "select to_number('99999', 'FM990.00')",
  "select to_number('abc', '999')",
  "select to_number('', '9G999D99')",
];

export const REVIEW_55N = [
  ...READ,
  ...REFUSED_BY_POSTGRESQL,
  // inside an expression at the picture's scale (PostgreSQL's too when every decimal is read)
  "select to_number('1,234.50', '9G999D99') * 2, to_number('12.25', '99.99') + 1",
  "select count(*) from sales.orders where to_number(order_id::text || '.5', '999D9') > 3",
  // a picture over a column and the fixture's text
  "select order_id, to_number(order_id::text || '-', '999S'), to_number(status || order_id, 'FM999999') from sales.orders order by order_id limit 6",
  "select to_number(name, '99999999999') from sales.customers where name like 'Customer%' order by customer_id limit 4",
  // a text without digits (O'Brien, Zoë Ünico: each byte of a multibyte character steps one 9)
  "select to_number(name, '99999999999') from sales.customers where name not like 'Customer%'",
  // an empty picture, a NULL picture or text: NULL
  "select to_number('12', ''), to_number('12', null), to_number(null, '99')",
  // PostgreSQL's errors for pictures it cannot read
  "select to_number('1.2.3', '9.9.9')",
  "select to_number('1', '9PR9')",
  "select to_number('1e5', '9.9EEEE')",
  "select to_number('XII', 'RN')",
  // trim_scale as an outermost select-list item: each value at its own least scale (it was 42883)
  'select trim_scale(1.500), trim_scale(0.000), trim_scale(-12.3400), trim_scale(null::numeric), trim_scale(7)',
  'select order_id, trim_scale(amount), trim_scale(qty), trim_scale(amount * 10), min_scale(amount * 10), scale(amount * 10) from sales.orders order by order_id limit 6',
  // unnest(a, b, …) in FROM: zipped, the shorter padded with NULLs, WITH ORDINALITY (it was 42883)
  "select * from unnest(array[1,2], array['a','b','c']) as u(x, y)",
  "select * from unnest(array[1,2], array['a','b','c']) with ordinality as u(x, y, n)",
  'select x, y from unnest(array[15, 225], null::text[]) u(x, y)',
  "select * from unnest(array[1,2], array['a','b','c']) u(x)",
  'select o.order_id, u.x, u.y from sales.orders o, unnest(array[o.qty, o.order_id], array[o.status]) u(x, y) where o.order_id < 4 order by o.order_id, u.x',
  "select count(*), sum(n) from unnest(array[1,2,3], array['a'], array[true, false]) with ordinality u(a, b, c, n)",
  'select * from unnest(array[1], array[2]) u(a, b, c, d)',
  // jsonb equality compares numbers by value (it compared the normal form's text: 1.50 <> 1.5), the text kept
  `select '{"a":1.50}'::jsonb = '{"a":1.5}'::jsonb, '{"a":1.50}'::jsonb <> '{"a":1.5}'::jsonb, '[1.0, 10]'::jsonb = '[1, 10.00]', '{"a":"1.50"}'::jsonb = '{"a":"1.5"}'::jsonb, '{"a":1.50}'::jsonb`,
  `select '{"a":1.50, "b":[0.10]}'::jsonb in ('{"b":[0.1], "a":1.5}', '[2]'), '[2.0]'::jsonb not in ('[2]')`,
  `select count(*) from sales.orders where '{"q": 2.50}'::jsonb = '{"q": 2.5}'::jsonb`,
];

export const REVIEW_55N_REFUSED = [
  // a picture that is not a constant: its expression is the picture's own
  "select to_number('12', status) from sales.orders",
  // V multiplies by a power of ten
  "select to_number('12', '99V9')",
  // trim_scale inside an expression: a DECIMAL keeps one scale a column
  'select trim_scale(1.50) + 1',
  'select order_id from sales.orders where trim_scale(amount) > 20 order by 1',
];
