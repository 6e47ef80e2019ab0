/**
 * PostgreSQL's clocks besides the transaction's (engine/transaction-clock.ts), as catalog macros:
 * statement_timestamp() the statement's start — DuckDB's own current timestamp, each statement here
 * being a DuckDB transaction of its own — and clock_timestamp() / timeofday() the instant the row is
 * computed. DuckDB has no such clock; uuidv7() stamps each call with the current time to the
 * millisecond, which is read back (never earlier than the statement's start). The built-ins are named
 * where DuckDB keeps them, past the session's macros of the transaction's clock; a catalog macro's
 * result is never cached (analysis/determinism.ts), and uuidv7 is volatile, so each row reads the clock.
 */
const STATEMENT_START = 'system.main.get_current_timestamp()';
const INSTANT = `greatest(system.main.uuid_extract_timestamp(system.main.uuidv7()), ${STATEMENT_START})`;
// PostgreSQL writes the zone's abbreviation (CET, IST); DuckDB's strftime the zone's name but for UTC
const TIMEOFDAY_REFUSED = `timeofday() in a time zone other than UTC is not supported by fdl-gateway|DuckDB names the zone where PostgreSQL writes its abbreviation: to_char(clock_timestamp(), ''Dy Mon DD HH24:MI:SS.US YYYY TZ''), or SET TimeZone = ''UTC''.`;

export const CLOCK_MACROS: ReadonlyArray<[string, string]> = [
  ['statement_timestamp()', STATEMENT_START],
  ['clock_timestamp()', INSTANT],
  [
    'timeofday()',
    `CASE WHEN system.main.strftime(${STATEMENT_START}, '%Z') = 'UTC' THEN system.main.strftime(${INSTANT}, '%a %b %d %H:%M:%S.%f %Y UTC') ELSE error('${TIMEOFDAY_REFUSED}') END`,
  ],
];
