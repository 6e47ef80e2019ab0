/**
 * Corpus statements of session 52 (issue 25, lead): PostgreSQL's justify_hours, justify_days and
 * justify_interval (they were 42883 with a hint to compute the parts by hand). PostgreSQL's answer in text
 * and binary, never refused, never excused.
 */
export const REVIEW_52_LEAD = [
  `select justify_hours(i), justify_days(i), justify_interval(i) from (values (interval '50 hours'), (interval '-50 hours'),
    (interval '1 day -50 hours'), (interval '-1 day 50 hours'), (interval '35 days'), (interval '-35 days'),
    (interval '1 month -35 days'), (interval '-1 month 35 days'), (interval '1 month -1 hour'), (interval '-1 month 1 hour'),
    (interval '1 year 2 months 40 days 50 hours 7 minutes 3.5 seconds'), (interval '-3.5 seconds 2 days'), (interval '0'),
    (null), (interval '29 days 25 hours'), (interval '1 mon -30 days -1 hour')) v(i)`,
  "select justify_hours('50 hours'), justify_days('65 days'), justify_interval('-1 month 1 hour'), justify_interval(null)",
  "select pg_catalog.justify_interval(ordered_at - timestamp '2023-11-02 13:14:15') from sales.orders order by order_id limit 5",
  'select justify_hours(ordered_at - lag(ordered_at) over (order by ordered_at, order_id)) from sales.orders order by ordered_at, order_id limit 4',
];
