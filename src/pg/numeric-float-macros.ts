/** The `_pgsem_tofloat8`/`_pgsem_tofloat4` macros numeric-floats.ts calls: a numeric through its decimal text, any other type DuckDB's cast. */

/** The numeric-like types DuckDB holds a PostgreSQL numeric in (a DECIMAL, an int8 sum's HUGEINT). */
const NUMERIC_LIKE = ['DECIMAL', 'HUGEINT', 'UBIGINT', 'UHUGEINT'];
export const FLOAT_OF: Record<string, string> = { float8: 'DOUBLE', float4: 'FLOAT' };

export const NUMERIC_FLOAT_MACROS: ReadonlyArray<[string, string]> = Object.entries(FLOAT_OF).flatMap(
  ([pg, duck]): Array<[string, string]> => [
    ...NUMERIC_LIKE.map((t): [string, string] => [`_pgsem_to${pg}(t ${t}, x)`, `CAST(CAST(x AS VARCHAR) AS ${duck})`]),
    [`_pgsem_to${pg}(t, x)`, `CAST(x AS ${duck})`],
  ],
);
