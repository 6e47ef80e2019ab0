/**
 * A value cast to name (`repeat('a', 70)::name`, `$1::name`): PostgreSQL's namein keeps its first 63 bytes
 * (NAMEDATALEN - 1), cut before a character they would split; DuckDB holds name as VARCHAR and kept it all.
 * A string constant is cut by the rewrite itself (pg-input.ts nameInput); rewrite-casts.ts calls the macro.
 */
import { NAME_BYTES } from './pg-input.js';

export const NAME_MACROS: ReadonlyArray<[string, string]> = [
  [
    '_pgsem_namein(x)',
    // the number of characters whose bytes fit: strlen counts bytes, left() characters; x read once (a
    // macro repeats its argument's expression at each use: a 240 KB name built per row, 65 times)
    `list_transform([x], lambda fdl_pg_n: CASE WHEN strlen(fdl_pg_n) <= ${NAME_BYTES} THEN fdl_pg_n ELSE left(fdl_pg_n, CAST(len(list_filter(range(1, ${NAME_BYTES + 1}), lambda fdl_pg_i: strlen(left(fdl_pg_n, fdl_pg_i)) <= ${NAME_BYTES})) AS BIGINT)) END)[1]`,
  ],
];
