/**
 * PostgreSQL's now(), current_timestamp, current_date, current_time, localtimestamp and localtime are
 * the transaction's start: two statements of one BEGIN … COMMIT (or of one simple Query of several) see
 * one time. DuckDB's are its own transaction's start, and every statement here is one: each read the
 * time it started (new-user review, session 51). Temporary macros of the built-ins' names on each
 * session connection read the session's block start from a variable (session/transaction-clock.ts sets
 * it while a block is open), and the built-in where none is set.
 */

/** The variable holding the open block's start (a TIMESTAMPTZ), NULL outside a block. */
export const TRANSACTION_START = 'pg_xact_start';

const start = `getvariable('${TRANSACTION_START}')::TIMESTAMPTZ`;

/** The built-in each name calls, and the block start as that function's type. */
const CLOCKS: ReadonlyArray<[name: string, fromStart: string]> = [
  ['now', start],
  ['transaction_timestamp', start],
  ['get_current_timestamp', start], // current_timestamp
  ['current_date', `CAST(${start} AS DATE)`],
  ['today', `CAST(${start} AS DATE)`],
  ['get_current_time', `CAST(${start} AS TIMETZ)`], // current_time
  ['current_localtimestamp', `CAST(${start} AS TIMESTAMP)`], // localtimestamp
  ['current_localtime', `CAST(${start} AS TIME)`], // localtime
];

/** The macros, one statement each (cast in the session's TimeZone when they run, as the built-ins). */
export function transactionClockStatements(): string[] {
  return CLOCKS.map(
    ([name, fromStart]) => `CREATE OR REPLACE TEMP MACRO ${name}() AS coalesce(${fromStart}, system.main.${name}())`,
  );
}

/** The statement that opens a block's clock (DuckDB's time, microseconds), and the one that ends it. */
export const START_CLOCK = `SET VARIABLE ${TRANSACTION_START} = system.main.get_current_timestamp()`;
export const STOP_CLOCK = `RESET VARIABLE ${TRANSACTION_START}`;
