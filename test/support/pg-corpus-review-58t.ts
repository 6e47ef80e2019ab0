/**
 * Corpus statements of session 58 (issue 25, helper s58-sil): result types the session-57 review found sent as
 * another type. `REVIEW_58T` must be PostgreSQL's answer or its error with PostgreSQL's SQLSTATE (never refused,
 * never excused). The user, catalog and schema names (type name, 19) differ by value between the two servers:
 * test/review-58-types.test.ts compares their types.
 */
export const REVIEW_58T = [
  // a cast to varchar without a length, and a choice whose first typed result is one, are varchar (1043; were text)
  "select coalesce(null::varchar, 'x'), 'abc'::character varying, 'abc'::varchar, status::varchar from sales.orders order by order_id limit 3",
  'select coalesce(status::varchar, status::text), coalesce(status::text, status::varchar), case when qty > 2 then status::varchar else status::text end, case when qty > 2 then status::text else status::varchar end from sales.orders order by order_id limit 3',
  "select coalesce(status::varchar(4), 'x'), coalesce(status::varchar(4), status::varchar(4)), greatest('a'::varchar, 'b'), case when qty > 2 then status::varchar end from sales.orders order by order_id limit 3",
  'select distinct status::varchar from sales.orders order by status::varchar',
  "select coalesce(null::varchar, 'x') as c, count(*) from sales.orders group by 1 order by c",
  // a cast to oid is oid (26; was int8), and pg_typeof says so (it said bigint); names are name
  "select 1::oid, 4294967295::oid, 'pg_class'::regclass::oid, pg_typeof(1::oid), pg_typeof(1::oid)::text",
  "select pg_typeof('a'::varchar), pg_typeof(status::varchar(3)), pg_typeof(current_user), pg_typeof(current_database()), pg_typeof(current_catalog) from sales.orders order by order_id limit 1",
  'select oid::oid, typname from pg_type where oid in (23, 25) order by 1',
];
