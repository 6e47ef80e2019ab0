/**
 * Corpus statements of session 53 (issue 25, helper s53-tochar): `to_char` of numbers with PostgreSQL 15's
 * numeric format patterns (refused 0A000 before). `REVIEW_53` must be PostgreSQL's answer or its error with
 * PostgreSQL's SQLSTATE (never refused, never excused): a table of values of each number type × pictures,
 * and the fixture's columns; `REVIEW_53_REFUSED` refused with a hint.
 */

/** Values of each type PostgreSQL formats apart (int4out, int8out, numeric_round, float's printf). */
const VALUES: ReadonlyArray<readonly [string, string[]]> = [
  ['int', ['0', '5', '-5', '12', '-123', '1234', '12345', '2147483647', '-2147483648', 'null']],
  ['bigint', ['0', '7', '-42', '123456789', '9223372036854775807', '-9223372036854775808']],
  [
    'numeric',
    [
      '0',
      '0.5',
      '-0.5',
      '0.05',
      '1.005',
      '2.5',
      '-2.5',
      '123.456',
      '-123.456',
      '99.995',
      '1234567.891',
      '-0.001',
      'null',
    ],
  ],
  [
    'float8',
    [
      '0',
      '2.5',
      '0.5',
      '-0.0',
      '1.005',
      '123.456',
      '-0.0001',
      '3.14159265358979',
      '1234567890123.45',
      '1e20',
      '-7.25e-5',
    ],
  ],
  ['real', ['0', '2.5', '123.456', '0.1', '-7.25', '1e10', '1234.5678']],
];

/** Pictures BI tools and people write, and each pattern's corner: fill mode, signs, zeros, overflow, text. */
const PICTURES = [
  '999',
  '999.99',
  'FM999.99',
  '9,999',
  '999G999D99',
  'FM999,999,990.00',
  '0000',
  '00.00',
  '9.9',
  'S999',
  '999S',
  'S999.99',
  '999.99S',
  'FMS999',
  '999MI',
  'MI999',
  'PL999',
  'SG999',
  '999PR',
  'FM999PR',
  'L999',
  '$999.99',
  '999th',
  'FM999TH',
  '9 9 9',
  '"Total: "999',
  'FM0.00',
  'FM9.0999',
  '0.99',
  '.99',
  '99.',
  '9990.99',
  'FM9990.99',
  'B999',
  'FMSG999',
  '99,999.00',
  'FM99,999.00',
  '999.999999',
  'fm999.99',
  '9999999999999999999999',
  '0009',
  'FM00099.9900',
  'MI9.99',
  '9.99PL',
  '"x\\"y"99',
];

/** The pictures for the types other than numeric (each call costs a bind of the macro: the corpus' time). */
const SOME_PICTURES = [
  '999',
  '999.99',
  'FM999.99',
  '9,999',
  'FM999,999,990.00',
  '00.00',
  'S999.99',
  '999PR',
  'FMSG999',
  '999th',
  'FM9.0999',
  '.99',
  '999.999999',
  '9999999999999999999999',
  'FM00099.9900',
];

function table(): string[] {
  const out: string[] = [];
  for (const [type, values] of VALUES) {
    const rows = values.map((v, i) => `(${i}, ${v === 'null' ? 'null' : `'${v}'`}::${type})`).join(', ');
    const pictures = type === 'numeric' ? PICTURES : SOME_PICTURES;
    for (let i = 0; i < pictures.length; i += 5) {
      const cols = pictures
        .slice(i, i + 5)
        .map((p) => `to_char(v, '${p.replaceAll("'", "''")}')`)
        .join(', ');
      out.push(`select i, ${cols} from (values ${rows}) t(i, v) order by i`);
    }
  }
  return out;
}

export const REVIEW_53 = [
  ...table(),
  // the issue's measured cases
  "select to_char(0.5, '999.99'), to_char(0, '999'), to_char(5, 'FM999.99'), to_char(12345, '9,999'), to_char(2.5::float8, '9'), to_char(2.5, '9')",
  // the fixture's columns, an aggregate, a window, a qualified call, a cast format
  "select order_id, to_char(amount, '999G999D99'), to_char(qty, 'FM999'), to_char(order_id, '0000'), to_char(amount::float8, '99999.9'), to_char(-amount, 'FM999,990.00PR') from sales.orders order by order_id limit 6",
  "select status, to_char(sum(amount), 'FM999,999,990.00'), to_char(avg(qty), '990.99'), to_char(count(*), '9,999') from sales.orders group by status order by status",
  "select order_id, to_char(sum(amount) over (order by order_id), 'L99,999.99'), pg_catalog.to_char(qty * 1.5, '99.9'), to_char(qty, '999'::text) from sales.orders order by order_id limit 4",
  "select to_char(null::numeric, '999'), to_char(null::int, 'FM9.99'), to_char(1234.5::numeric(10,2), '9G999D9'), to_char(-0.004::numeric, 'FM9990.99')",
];

/** Refused with a hint: patterns not emulated. */
export const REVIEW_53_REFUSED = [
  "select to_char(1234, '9999V99')",
  "select to_char(1234.5, '9.99EEEE')",
  "select to_char(1994, 'RN')",
];
