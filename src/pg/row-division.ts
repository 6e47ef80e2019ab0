/**
 * PostgreSQL's numeric division per row (numeric_div), exact and vectorised. DuckDB divides DECIMALs as
 * DOUBLE; the aggregate path's `_pgsem_ndiv` (strings and three lambdas per value) costs ~100 µs a value.
 * Here: the value PostgreSQL computes — rounded half away from zero at select_div_scale's scale r (16
 * significant digits from the operands' leading base-10000 digits, at least either operand's scale) —
 * at one scale per column, DECIMAL(38,20) as the aggregate path (a scale above 20 is rounded at 20).
 *
 * Operands whose unscaled digits a double holds exactly (below 2·10^15, nearly every row) find r from
 * doubles; others read their digits from the value's text and find r in HUGEINT. The quotient is one
 * HUGEINT division. A macro pastes its arguments where they are used, and DuckDB binds every copy:
 * pasted, these steps made a statement's tree tens of thousands of nodes, seconds to bind. So each value
 * used more than once is bound once, by a one-element list and a lambda (~60 ns a row each, measured).
 * A quotient of 10^18 or more, or a dividend scaled beyond HUGEINT, is refused (22003 "numeric field
 * overflow", with a hint), never rounded; a zero divisor is 22012.
 */

/** The refusal of a quotient HUGEINT or DECIMAL(38,20) cannot hold (engine/duckdb-errors.ts: 22003 with the hint). */
const OVERFLOW = `error('numeric field overflow: a numeric division per row needs more than 38 digits (a quotient of 10^18 or more, or operands of more than about 18 significant digits at the quotient''s scale)|Divide as double precision (x::float8 / y), or round the operands first (round(x, 6) / round(y, 6)).')`;

/** `body` over values bound once: the fields of a one-element list's struct, read through `field`. */
function bind(name: string, fields: Record<string, string>, body: (field: (k: string) => string) => string): string {
  const struct = Object.entries(fields)
    .map(([k, v]) => `'${k}': ${v}`)
    .join(', ');
  return `list_transform([{${struct}}], ${name} -> ${body((k) => `${name}['${k}']`)})[1]`;
}

/** select_div_scale from the operands' weights and leading base-10000 digits, capped at 20. */
const rscale = (wx: string, wy: string, fx: string, fy: string, sx: string, sy: string): string =>
  `least(greatest(16 - 4 * (${wx} - ${wy} - CAST(${fx} <= ${fy} AS INTEGER)), ${sx}, ${sy}, 0), 20)`;

/** PostgreSQL's weight of v·10^-s from its digits before the point less one, `log` (0 for zero). */
const weight = (v: string, log: string, s: string): string =>
  `CAST(${v} > 0 AS INTEGER) * ((${log} - ${s} + 400) // 4 - 100)`;

/**
 * |x|·10^-sx / |y|·10^-sy (x, y unscaled HUGEINTs) at scale r rounded half away from zero, as the
 * unscaled value at scale 20: floor((2n + d) / 2d) with n = x·10^k, d = y·10^-k, k = sy - sx + r.
 */
function quotient(x: string, y: string, sx: string, sy: string, r: string): string {
  const k = `(${sy} - ${sx} + ${r})`;
  const d = `${y} * _pgsem_p10x(greatest(-${k}, 0))`;
  return `CASE WHEN CAST(${x} AS DOUBLE) * pow(10, ${k}) >= 8e37 OR CAST(${y} AS DOUBLE) * pow(10, -${k}) >= 8e37 THEN ${OVERFLOW}
    ELSE (2 * ${x} * _pgsem_p10x(greatest(${k}, 0)) + ${d}) // (2 * ${d}) * _pgsem_p10x(20 - ${r}) END`;
}

/** The unscaled digits of v as an exact double (v's below 2·10^15 are). */
const unscaledDouble = (v: string): string => `round(abs(CAST(${v} AS DOUBLE)) * pow(10, _pgsem_scale(${v})))`;

/** Rows whose digits doubles hold exactly: log10 corrected, the leading digit exact (v and 10^e exact). */
function fastPath(f: (k: string) => string): string {
  const first = (v: string, s: string, w: string) =>
    `floor(${v} * pow(10, greatest(-(${s} + 4 * ${w}), 0)) / pow(10, greatest(${s} + 4 * ${w}, 0)))`;
  const r = rscale(
    f('wx'),
    f('wy'),
    first(f('x'), f('sx'), f('wx')),
    first(f('y'), f('sy'), f('wy')),
    f('sx'),
    f('sy'),
  );
  return bind('fdl_pg_dr', { r }, (g) =>
    quotient(`CAST(${f('x')} AS HUGEINT)`, `CAST(${f('y')} AS HUGEINT)`, f('sx'), f('sy'), g('r')),
  );
}

/** Other rows (rare): the unscaled digits read from the value's text, digits and leading digits in HUGEINT. */
function generalPath(f: (k: string) => string): string {
  const digits = { x: `abs(_pgsem_unscaled(${f('a')}))`, y: `abs(_pgsem_unscaled(${f('b')}))` };
  return bind('fdl_pg_dg', digits, (g) =>
    bind(
      'fdl_pg_dw',
      {
        wx: weight(g('x'), `(_pgsem_ndig(${g('x')}) - 1)`, f('sx')),
        wy: weight(g('y'), `(_pgsem_ndig(${g('y')}) - 1)`, f('sy')),
      },
      (h) => {
        const r = rscale(
          h('wx'),
          h('wy'),
          `_pgsem_hfirst(${g('x')}, ${f('sx')}, ${h('wx')})`,
          `_pgsem_hfirst(${g('y')}, ${f('sy')}, ${h('wy')})`,
          f('sx'),
          f('sy'),
        );
        return bind('fdl_pg_dh', { r }, (i) => quotient(g('x'), g('y'), f('sx'), f('sy'), i('r')));
      },
    ),
  );
}

/** a / b, one of them DECIMAL and neither a float: PostgreSQL's quotient as DECIMAL(38,20). */
const DIVISION = bind(
  'fdl_pg_d',
  {
    a: 'a',
    b: 'b',
    sx: '_pgsem_scale(a)',
    sy: '_pgsem_scale(b)',
    x: unscaledDouble('a'),
    y: unscaledDouble('b'),
    wx: weight(unscaledDouble('a'), `_pgsem_xlog(${unscaledDouble('a')})`, '_pgsem_scale(a)'),
    wy: weight(unscaledDouble('b'), `_pgsem_xlog(${unscaledDouble('b')})`, '_pgsem_scale(b)'),
  },
  (f) => `CAST(sign(${f('a')}) * sign(${f('b')}) * CASE WHEN ${f('b')} = 0 THEN error('division by zero')
    WHEN ${f('x')} * pow(10, ${f('sy')} - ${f('sx')}) >= 9.9e17 * ${f('y')} THEN ${OVERFLOW}
    WHEN ${f('x')} < 2e15 AND ${f('y')} < 2e15 THEN ${fastPath(f)}
    ELSE ${generalPath(f)} END AS DECIMAL(38,0)) * CAST('0.00000000000000000001' AS DECIMAL(38,20))`,
);

/** Macros as [signature, body], unqualified (pg-macros.ts qualifies `_pgsem_` names). */
export const ROW_DIVISION_MACROS: ReadonlyArray<[string, string]> = [
  // 10^n exactly as HUGEINT, 0 ≤ n ≤ 38: two powers a double holds exactly, multiplied.
  ['_pgsem_p10x(n)', 'CAST(pow(10, least(n, 19)) AS HUGEINT) * CAST(pow(10, greatest(n - 19, 0)) AS HUGEINT)'],
  // The digits before the point of a double v ≥ 1 holding an integer exactly, less one: log10's, corrected.
  ['_pgsem_xlog0(v, n)', 'n + CAST(v >= pow(10, n + 1) AS INTEGER) - CAST(v < pow(10, n) AS INTEGER)'],
  ['_pgsem_xlog(v)', '_pgsem_xlog0(v, CAST(floor(log10(greatest(v, 1))) AS INTEGER))'],
  // The digits of a HUGEINT v ≥ 0 (0 for zero): log10's estimate, corrected by exact comparisons.
  ['_pgsem_ndig0(v, n)', 'n + CAST(v >= _pgsem_p10x(n) AS INTEGER) - CAST(v < _pgsem_p10x(n - 1) AS INTEGER)'],
  [
    '_pgsem_ndig(v)',
    '_pgsem_ndig0(v, least(greatest(CAST(floor(log10(greatest(CAST(v AS DOUBLE), 1))) AS INTEGER) + 1, 1), 38))',
  ],
  // The leading base-10000 digit of v·10^-s at weight w, exactly: a double's estimate corrected by one.
  [
    '_pgsem_hfirst(v, s, w)',
    '_pgsem_hfirst1(v * _pgsem_p10x(greatest(-(s + 4 * w), 0)), _pgsem_p10x(greatest(s + 4 * w, 0)))',
  ],
  ['_pgsem_hfirst1(v, p)', '_pgsem_hfirst2(v, p, CAST(floor(CAST(v AS DOUBLE) / CAST(p AS DOUBLE)) AS HUGEINT))'],
  ['_pgsem_hfirst2(v, p, f)', 'f - CAST(f * p > v AS HUGEINT) + CAST((f + 1) * p <= v AS HUGEINT)'],
  ['_pgsem_xdiv(a, b)', DIVISION],
];
