/**
 * DuckLake views and macros inside the per-version database. View SQL names the lake as
 * `{DUCKLAKE_CATALOG}`; it is replaced by the target database outside string literals and quoted
 * identifiers (as the extension does). Views are created in dependency order by retrying; a view
 * that cannot be bound because an object it names is gone ("dangling") is still created against a
 * temporary stub so it is listed, and fails when queried — like the extension.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { LakeView } from './model.js';
import { qi } from './sql.js';
import { runOneCreate } from './one-statement.js';

const PLACEHOLDER = '{DUCKLAKE_CATALOG}';

export function replaceCatalogPlaceholder(sql: string, catalog: string): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === "'" || ch === '"') {
      let j = i + 1;
      for (;;) {
        if (j >= sql.length) break;
        if (sql[j] === ch) {
          if (sql[j + 1] === ch) {
            j += 2;
            continue;
          }
          break;
        }
        j++;
      }
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else if (sql.startsWith(PLACEHOLDER, i)) {
      out += qi(catalog);
      i += PLACEHOLDER.length;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

export function createViewSql(targetDb: string, v: LakeView): string {
  const aliases = v.aliases.length ? `(${v.aliases.map(qi).join(', ')})` : '';
  return `CREATE VIEW ${qi(targetDb)}.${qi(v.schema)}.${qi(v.name)}${aliases} AS ${replaceCatalogPlaceholder(v.sql, targetDb)}`;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Create the views; returns warnings for dangling views. `use` sets the binding context
 * (unqualified names resolve in the view's own schema of the target database).
 */
export async function createViews(
  conn: DuckDBConnection,
  targetDb: string,
  views: LakeView[],
  use: (schema: string) => Promise<void>,
): Promise<string[]> {
  const warnings: string[] = [];
  let pending = [...views];
  const errors = new Map<LakeView, string>();
  for (let progress = true; pending.length && progress;) {
    progress = false;
    const next: LakeView[] = [];
    for (const v of pending) {
      try {
        await use(v.schema);
        await runOneCreate(conn, createViewSql(targetDb, v), `view ${v.schema}.${v.name}`);
        progress = true;
      } catch (e) {
        errors.set(v, message(e));
        next.push(v);
      }
    }
    pending = next;
  }
  for (const v of pending) {
    const name = `${v.schema}.${v.name}`;
    const created = await createDangling(conn, targetDb, v, use);
    warnings.push(
      `view ${name} ${created ? 'is dangling (listed, fails when queried)' : 'could not be created'}: ${errors.get(v)?.split('\n')[0]}`,
    );
  }
  return warnings;
}

/** Bind a dangling view against stub tables for the missing names, then drop the stubs. */
async function createDangling(
  conn: DuckDBConnection,
  targetDb: string,
  v: LakeView,
  use: (schema: string) => Promise<void>,
): Promise<boolean> {
  const stubs = new Map<string, string[]>(); // stub table → columns
  const target = `${qi(targetDb)}.${qi(v.schema)}`;
  const create = async () => {
    for (const [t, cols] of stubs) {
      await conn.run(`CREATE OR REPLACE TABLE ${target}.${qi(t)} (${cols.map((c) => `${qi(c)} INTEGER`).join(', ')})`);
    }
  };
  let ok = false;
  for (let attempt = 0; attempt < 20 && !ok; attempt++) {
    try {
      await create();
      await use(v.schema);
      await runOneCreate(conn, createViewSql(targetDb, v), `view ${v.schema}.${v.name}`);
      ok = true;
    } catch (e) {
      const msg = message(e);
      const table = /Table with name ([^\s!]+) does not exist/.exec(msg);
      const column = /Referenced column "?([^"\s]+)"? not found/.exec(msg);
      if (table && !stubs.has(table[1]!)) stubs.set(table[1]!, ['__stub']);
      else if (column && stubs.size) [...stubs.values()].at(-1)!.push(column[1]!);
      else break;
    }
  }
  for (const t of stubs.keys()) await conn.run(`DROP TABLE IF EXISTS ${target}.${qi(t)}`);
  return ok;
}
