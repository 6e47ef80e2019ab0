/**
 * Corpus statements of session 55 (issue 25, helper s55-floats). `REVIEW_55` must be PostgreSQL's answer or
 * its error with PostgreSQL's SQLSTATE (never refused, never excused): a select-list alias inside an ORDER
 * BY/GROUP BY expression read as the FROM item's column (42703 where it has none, which a typed macro's
 * overload choice turned into 42725); a numeric cast to float8/float4 rounded once from its decimal text
 * (DuckDB rounded twice: 1 ulp off); float8/float4 text at a halfway point and at a tie as PostgreSQL's Ryu
 * prints it; a name cut to 63 bytes; an oid's input range; a string compared with an oid or a "char" read
 * by that type's input.
 */
export const REVIEW_55 = [
  // an alias inside an ORDER BY/GROUP BY expression that reaches a typed macro (float check, division, round)
  'select qty as x from sales.orders order by x / 2',
  'select qty as x from sales.orders order by round(x, 1)',
  'select amount as x from sales.orders order by x::float8 * 2',
  'select qty as x, count(*) from sales.orders group by x - 1',
  'select qty as amount from sales.orders where qty > 2 order by amount * 2, order_id limit 3',
  // numeric to float8/float4: one rounding from the decimal text (DuckDB's DECIMAL cast rounded twice)
  'select 5278527.7493257383::numeric::real, 28578933.3312459956823075::numeric::real, 46.7350101650::numeric::real',
  'select 0.6068578579077859863651684::numeric::real, 0.89447589::numeric::real, 0.2355902551109::numeric::real, 12.4248109::numeric::real',
  'select 0.96423516180939663942233::numeric::float8, 1.314139040614590865982::numeric::float8, 1.1::numeric::real, (0.1::numeric + 0.2)::float8',
  'select (amount * 1.0000001)::real, (amount / 7)::float8, sum(amount)::float8 over (order by order_id) from sales.orders order by order_id limit 5',
  'select 12345678901234567890::numeric::float8, 123456789012345678901234567890::numeric::float8, 9007199254740993::numeric::float8',
  // float text where the shortest digits lie halfway to a neighbour, or at a tie of the last digit (Ryu's choice)
  'select 42706294943638704::float8, 4.27062949436387e16::float8, 77477616::real, 84529824::real, 3242377.25::real',
  'select 42706294943638701.052384::numeric::float8, 77477616.3::numeric::real, 84529826.243180610974::numeric::real',
  // a name holds 63 bytes, cut before a character they would split
  "select repeat('a', 70)::name, length(repeat('a', 70)::name), 'ééééééééééééééééééééééééééééééééééé'::name",
  "select octet_length(repeat('é', 40)::name), repeat('ab', 40)::name = repeat('ab', 40)::name",
  // an oid's input: -2147483648 … 4294967295 (a negative one modulo 2^32), else 22003; a string beside an oid or a "char"
  "select 1::oid = '4294967296'",
  "select '-1'::oid = 4294967295::oid, 1::oid = '1', '4294967295'::oid = '-1'::oid",
  "select '4294967296'::oid",
  "select 'r'::\"char\" = 'rx', 'rx' = 'r'::\"char\", 'abc'::\"char\" = 'a'",
  // time input PostgreSQL accepts: 'allballs' is midnight (UTC for timetz)
  "select 'allballs'::time, 'allballs'::timetz, time 'allballs' < '01:00'",
];
