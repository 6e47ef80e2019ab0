/**
 * Corpus statements from the sixth round of issue 25 (session 37): known silent differences, each now
 * PostgreSQL's answer or a refusal with a precise SQLSTATE and a hint; never excused by a documented row.
 */
export const REVIEW_6 = [
  // array subscripts outside the bounds: NULL (an element) or clamped (a slice); DuckDB counted a negative one from the end
  'select (array[10, 20, 30])[-1], (array[10, 20, 30])[0], (array[10, 20, 30])[4], (array[10, 20, 30])[null]',
  'select (array[10, 20, 30])[-1:2], (array[10, 20, 30])[0:2], (array[10, 20, 30])[2:5], (array[10, 20, 30])[-3:-1], (array[10, 20, 30])[3:1], (array[10, 20, 30])[0:0], (array[10, 20, 30])[null:2]',
  'select (array[10, 20, 30])[:-1], (array[10, 20, 30])[-1:], (array[10, 20, 30])[:2], (array[10, 20, 30])[2:]',
  'select order_id, (array[10, 20, 30])[qty - 3], (array[10, 20, 30])[qty - 4:qty - 2] from sales.orders order by order_id limit 6',
  "select (string_to_array('a,b,c', ','))[-1], (string_to_array(status, 'e'))[0] from sales.orders order by order_id limit 2",
  // LIKE spelled as its operators (~~, !~~, ~~*, !~~*): PostgreSQL's default escape is a backslash, as for LIKE
  "select 'a_b' ~~ 'a\\_b', 'axb' ~~ 'a\\_b', 'a_b' !~~ 'a\\_b', 'A_B' ~~* 'a\\_b', 'A_B' !~~* 'a\\_b', 'a%' ~~ 'a\\%', 'ab' ~~ 'a\\b'",
  "select count(*) from sales.orders where status !~~ 'o\\pen' and status !~~* 'P%'",
  "select 'a_b' operator(pg_catalog.~~) 'a\\_b'",
];
