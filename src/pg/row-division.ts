/**
 * PostgreSQL's numeric division per row (numeric_div), exact and vectorised. DuckDB divides DECIMALs as
 * DOUBLE, and its HUGEINT division (`//`, `%`, a DECIMAL(38) cast to an integer) runs bit by bit, ~10×
 * a multiplication; the aggregate path's `_pgsem_ndiv` (strings and a lambda per value) costs ~100 µs.
 * Here a quotient is a double's estimate made exact by HUGEINT multiplications: the remainder
 * `m - t·d` is exact, and it is divided again as doubles until it lies in [0, d). No strings, lists or
 * lambdas per row. A macro pastes its arguments where they are used, so the bodies keep what they
 * paste small, and hold no CASE around shared parts (DuckDB's common-subexpression pass, which
 * computes each pasted copy once, does not enter a CASE).
 *
 * The value is PostgreSQL's: rounded half away from zero at select_div_scale's scale r (16 significant
 * digits from the operands' leading base-10000 digits, at least either operand's scale), held at one
 * scale per column, DECIMAL(38,20) as the aggregate path (a scale above 20 is rounded at 20). r is one
 * of at most six values (a multiple of 4, or the larger operand scale), so the quotient is computed at
 * each of them, with constant scale factors, and the one at r kept. Operands whose unscaled digits a
 * double does not hold exactly (2·10^15 or more) take `_pgsem_ndiv`. A quotient of 10^18 or more is
 * refused (22003, "numeric field overflow", with a hint), never rounded; a zero divisor is 22012.
 */

/** The refusal of a quotient DECIMAL(38,20) cannot hold (engine/duckdb-errors.ts: 22003). */
const OVERFLOW = `error('numeric field overflow: the quotient of a numeric division needs more than 18 digits before the decimal point|Divide as double precision (x::float8 / y), or divide smaller values.')`;

/** Macros as [signature, body], unqualified (pg-macros.ts qualifies `_pgsem_` names). */
export const ROW_DIVISION_MACROS: ReadonlyArray<[string, string]> = [
  // 10^n exactly as HUGEINT, 0 ≤ n ≤ 38: two powers a double holds exactly, multiplied.
  ['_pgsem_p10x(n)', 'CAST(pow(10, least(n, 19)) AS HUGEINT) * CAST(pow(10, greatest(n - 19, 0)) AS HUGEINT)'],
  // floor(m / d) for m ≥ 0, d > 0, never above it: a double's estimate lowered by more than its error (3·2^-53).
  ['_pgsem_qest(m, d)', 'CAST(floor(CAST(m AS DOUBLE) / CAST(d AS DOUBLE) * 0.999999999999999) AS HUGEINT)'],
  ['_pgsem_qstep(m, d, t)', 't + _pgsem_qest(m - t * d, d)'],
  // Of a 38-digit quotient the first estimate is short by < 10^24, the next by < 10^9, the next by at most 1.
  ['_pgsem_quot(m, d)', '_pgsem_qfix(m, d, _pgsem_qstep(m, d, _pgsem_qstep(m, d, _pgsem_qest(m, d))))'],
  ['_pgsem_qfix(m, d, t)', 't + CAST(m - t * d >= d AS HUGEINT)'],
  // The digits before the point of v > 0 exactly as a double holds it, less one: log10's, corrected.
  ['_pgsem_xlog0(v, n)', 'n + CAST(v >= pow(10, n + 1) AS INTEGER) - CAST(v < pow(10, n) AS INTEGER)'],
  ['_pgsem_xlog(v)', '_pgsem_xlog0(v, CAST(floor(log10(greatest(v, 1))) AS INTEGER))'],
  // PostgreSQL's weight of v·10^-s (the position of its leading base-10000 digit; 0 for zero).
  ['_pgsem_xweight(v, s)', 'CAST(v > 0 AS INTEGER) * ((_pgsem_xlog(v) - s + 400) // 4 - 100)'],
  // That digit: exact for v < 2^53, as v and 10^e are exact and the distance to the next integer is ≥ 10^-e.
  ['_pgsem_xfirst(v, s, w)', 'floor(v * pow(10, greatest(-(s + 4 * w), 0)) / pow(10, greatest(s + 4 * w, 0)))'],
  // select_div_scale of |x|·10^-sx / |y|·10^-sy (x, y the unscaled digits as exact doubles), capped at 20.
  ['_pgsem_xrscale(x, sx, y, sy)', '_pgsem_xrscale1(x, sx, _pgsem_xweight(x, sx), y, sy, _pgsem_xweight(y, sy))'],
  [
    '_pgsem_xrscale1(x, sx, wx, y, sy, wy)',
    'least(greatest(16 - 4 * (wx - wy - CAST(_pgsem_xfirst(x, sx, wx) <= _pgsem_xfirst(y, sy, wy) AS INTEGER)), sx, sy, 0), 20)',
  ],
  // |x|·10^-sx / |y|·10^-sy at scale r rounded half away from zero — floor((2n + d) / 2d) with n = x·10^k,
  // d = y·10^-k, k = sy - sx + r —, as the unscaled value at scale 20. One HUGEINT division: inside a
  // lambda nothing is computed once, and the refinements' copies cost more than it.
  [
    '_pgsem_xquot(x, y, k, r)',
    `CASE WHEN CAST(x AS DOUBLE) * pow(10, k) >= 8e37 OR CAST(y AS DOUBLE) * pow(10, -k) >= 8e37 THEN ${OVERFLOW} ELSE (2 * x * _pgsem_p10x(greatest(k, 0)) + y * _pgsem_p10x(greatest(-k, 0))) // (2 * y * _pgsem_p10x(greatest(-k, 0))) * _pgsem_p10x(20 - r) END`,
  ],
  // r is bound once, by a one-element list (~50 ns a row): pasted into the quotient, its expression made
  // the statement's tree tens of thousands of nodes, seconds to bind.
  [
    '_pgsem_xdivr(x, sx, y, sy, r)',
    `list_transform([{'x': x, 'y': y, 'd': sy - sx, 'r': r}], fdl_pg_q -> _pgsem_xquot(fdl_pg_q['x'], fdl_pg_q['y'], fdl_pg_q['d'] + fdl_pg_q['r'], fdl_pg_q['r']))[1]`,
  ],
  // Beyond a double's exact digits (rare rows): the unscaled HUGEINTs read from the value's text, their
  // digits, weights and leading base-10000 digits exactly.
  ['_pgsem_ndig0(v, n)', 'n + CAST(v >= _pgsem_p10x(n) AS INTEGER) - CAST(v < _pgsem_p10x(n - 1) AS INTEGER)'],
  [
    '_pgsem_ndig(v)',
    '_pgsem_ndig0(v, least(greatest(CAST(floor(log10(greatest(CAST(v AS DOUBLE), 1))) AS INTEGER) + 1, 1), 38))',
  ],
  ['_pgsem_hweight(v, s)', 'CAST(v > 0 AS INTEGER) * ((_pgsem_ndig(v) - 1 - s + 400) // 4 - 100)'],
  [
    '_pgsem_hfirst(v, s, w)',
    '_pgsem_hfirst1(v * _pgsem_p10x(greatest(-(s + 4 * w), 0)), _pgsem_p10x(greatest(s + 4 * w, 0)))',
  ],
  ['_pgsem_hfirst1(v, p)', '_pgsem_hfirst2(v, p, CAST(floor(CAST(v AS DOUBLE) / CAST(p AS DOUBLE)) AS HUGEINT))'],
  ['_pgsem_hfirst2(v, p, f)', 'f - CAST(f * p > v AS HUGEINT) + CAST((f + 1) * p <= v AS HUGEINT)'],
  [
    '_pgsem_hrscale(x, sx, wx, y, sy, wy)',
    'least(greatest(16 - 4 * (wx - wy - CAST(_pgsem_hfirst(x, sx, wx) <= _pgsem_hfirst(y, sy, wy) AS INTEGER)), sx, sy, 0), 20)',
  ],
  [
    '_pgsem_hdiv(x, sx, y, sy)',
    '_pgsem_xdivr(x, sx, y, sy, _pgsem_hrscale(x, sx, _pgsem_hweight(x, sx), y, sy, _pgsem_hweight(y, sy)))',
  ],
  [
    '_pgsem_xgeneral(a, b)',
    `sign(a) * sign(b) * list_transform([{'x': abs(_pgsem_unscaled(a)), 'sx': _pgsem_scale(a), 'y': abs(_pgsem_unscaled(b)), 'sy': _pgsem_scale(b)}], fdl_pg_h -> _pgsem_hdiv(fdl_pg_h['x'], fdl_pg_h['sx'], fdl_pg_h['y'], fdl_pg_h['sy']))[1]`,
  ],
  // Refused (judged on doubles, with a margin): a quotient of 10^18 or more (and in _pgsem_xquot a
  // dividend or divisor scaled beyond HUGEINT). Fast: digits a double holds exactly (below 2·10^15).
  [
    '_pgsem_xdiv0(a, b, xd, sx, yd, sy)',
    `CAST(CASE WHEN b = 0 THEN error('division by zero')
      WHEN xd * pow(10, sy - sx) >= 9.9e17 * yd THEN ${OVERFLOW}
      WHEN xd < 2e15 AND yd < 2e15 THEN sign(a) * sign(b) * _pgsem_xdivr(CAST(xd AS HUGEINT), sx, CAST(yd AS HUGEINT), sy, _pgsem_xrscale(xd, sx, yd, sy))
      ELSE _pgsem_xgeneral(a, b) END AS DECIMAL(38,0)) * CAST('0.00000000000000000001' AS DECIMAL(38,20))`,
  ],
  // a / b, one of them DECIMAL and neither a float: PostgreSQL's quotient as DECIMAL(38,20).
  [
    '_pgsem_xdiv(a, b)',
    '_pgsem_xdiv0(a, b, round(abs(CAST(a AS DOUBLE)) * pow(10, _pgsem_scale(a))), _pgsem_scale(a), round(abs(CAST(b AS DOUBLE)) * pow(10, _pgsem_scale(b))), _pgsem_scale(b))',
  ],
];
