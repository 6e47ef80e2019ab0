/**
 * Corpus statements from the new-user review of issue 25 in session 37 (numeric constants, sha2, regex escapes, settings): each
 * answered differently from PostgreSQL 15 in silence, and must now be PostgreSQL's answer or a
 * refusal with a hint (never excused by a documented difference).
 */
export const REVIEW_FUNCS = [
  // numeric constants in exponent form: the exact decimal of the text (they gave 0.000, 0.0000, 6.02e+23 …)
  "select '1e-4'::numeric, '2.5e-4'::decimal, 1.0e-7::numeric, 1.23e-5::numeric, 6.02e23::numeric",
  'select 1e-4, 2.5e-4, 1.0e-7, 6.02e23, 1e3, 1.5E+2, -1e-2, 1.50e2',
  "select 1e-4 + 1, '1e-4'::numeric * 3, sum(1e-4) from sales.orders",
  'select count(*) from sales.orders where amount > 2e1',
  // beyond DECIMAL(38,s): refused with a hint, never rounded
  "select '1e-40'::numeric",
  'select 1e400',
];
