/**
 * A value cast to name (`repeat('a', 70)::name`, `$1::name`): PostgreSQL's namein keeps its first 63 bytes
 * (NAMEDATALEN - 1), cut before a character they would split; DuckDB holds name as VARCHAR and kept it all.
 * A string constant is cut by the rewrite itself (pg-input.ts nameInput); rewrite-casts.ts calls the macro.
 */
import { NAME_BYTES } from './pg-input.js';

export const NAME_MACROS: ReadonlyArray<[string, string]> = [
  [
    '_pgsem_namein(x)',
    // the number of characters whose bytes fit: strlen counts bytes, left() characters (a long name is rare)
    `CASE WHEN strlen(x) <= ${NAME_BYTES} THEN x ELSE left(x, CAST(len(list_filter(range(1, ${NAME_BYTES + 1}), lambda fdl_pg_i: strlen(left(x, fdl_pg_i)) <= ${NAME_BYTES})) AS BIGINT)) END`,
  ],
];
