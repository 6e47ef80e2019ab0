/** Walk the fixture corpus and open one version the way the gateway does (lake layer only). */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { attachCatalog, openCatalog, type LakeCatalog } from '../../src/lake/index.js';

/** dist/test/support → project root (works from src and from dist). */
const here = path.dirname(fileURLToPath(import.meta.url));
export const FIXTURES = [path.resolve(here, '../fixtures'), path.resolve(here, '../../../test/fixtures')].find((p) =>
  existsSync(path.join(p, 'manifest.json')),
)!;

export interface VersionCase {
  repo: string;
  root: string;
  dataDir: string;
  id: string;
  catalogFile: string;
  expectedFile: string | null;
}

export function repoVersions(root: string, repo: string, expectedDir: string | null): VersionCase[] {
  const fdl = JSON.parse(readFileSync(path.join(root, 'fdl.json'), 'utf8')) as { data_dir?: string };
  const dataDir = fdl.data_dir ?? 'data/';
  const versionsDir = path.join(root, 'versions');
  return readdirSync(versionsDir)
    .filter((id) => existsSync(path.join(versionsDir, id, 'version.json')))
    .sort()
    .map((id) => {
      const vj = JSON.parse(readFileSync(path.join(versionsDir, id, 'version.json'), 'utf8')) as {
        catalogs: { path: string }[];
      };
      const expected = expectedDir ? path.join(expectedDir, `${id}.json`) : null;
      return {
        repo,
        root,
        dataDir,
        id,
        catalogFile: path.join(versionsDir, id, vj.catalogs[0]!.path),
        expectedFile: expected && existsSync(expected) ? expected : null,
      };
    });
}

/** Every version of every repository in the manifest. */
export function allVersions(): VersionCase[] {
  const manifest = JSON.parse(readFileSync(path.join(FIXTURES, 'manifest.json'), 'utf8')) as {
    repos: Record<string, { path: string; expected: string }>;
  };
  return Object.entries(manifest.repos).flatMap(([repo, r]) =>
    repoVersions(path.join(FIXTURES, r.path), repo, path.join(FIXTURES, r.expected)),
  );
}

export interface Opened {
  conn: DuckDBConnection;
  catalog: LakeCatalog;
  warnings: string[];
  close(): void;
}

export async function openVersion(v: Pick<VersionCase, 'root' | 'dataDir' | 'catalogFile'>): Promise<Opened> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  const close = () => {
    conn.closeSync();
    instance.closeSync();
  };
  try {
    const catalog = await openCatalog(conn, v.catalogFile, 'meta');
    const { warnings } = await attachCatalog(conn, catalog, 'lake', (rel) => path.join(v.root, v.dataDir, rel));
    await conn.run('USE lake');
    await conn.run("SET TimeZone='UTC'");
    return { conn, catalog, warnings, close };
  } catch (e) {
    close();
    throw e;
  }
}

const key = (row: unknown) => JSON.stringify(row);

/** Rows as the fixtures store them, sorted by JSON text (UTF-16 order). */
export function sortRows(rows: unknown[][]): unknown[][] {
  return rows
    .map((r) => ({ r, k: key(r) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
    .map((x) => x.r);
}

export function rowsSha256(rows: unknown[][]): string {
  return createHash('sha256')
    .update(JSON.stringify(sortRows(rows)), 'utf8')
    .digest('hex');
}

/**
 * A fixture's expected cells (DuckDB's text of each value) as a PostgreSQL client reads them: the
 * gateway prints float4/float8 as PostgreSQL does (`4`, `NaN`, `Infinity`) where DuckDB prints `4.0`,
 * `nan`, `inf`. Only those spellings change, so any other difference still fails.
 */
/**
 * DuckDB's text of a BLOB (`abc`, `\x00\xFF`) and of an INTERVAL (`2 months`) as PostgreSQL's
 * bytea and interval output functions write them (`\x616263`, `2 mons`): what a `::text` of them
 * answers through the gateway (pg/pg-text.ts). `blobs`/`intervals`: the columns of those types.
 */
export function asPostgresText(
  rows: unknown[][],
  columns: readonly string[],
  blobs: readonly string[],
  intervals: readonly string[],
): unknown[][] {
  const blobAt = new Set(blobs.map((c) => columns.indexOf(c)));
  const intervalAt = new Set(intervals.map((c) => columns.indexOf(c)));
  const bytesOf = (text: string): Buffer => {
    const out: number[] = [];
    for (let i = 0; i < text.length;) {
      const hex = /^\\x([0-9A-Fa-f]{2})/.exec(text.slice(i));
      if (hex) {
        out.push(parseInt(hex[1]!, 16));
        i += 4;
      } else {
        const ch = String.fromCodePoint(text.codePointAt(i)!);
        out.push(...Buffer.from(ch, 'utf8'));
        i += ch.length;
      }
    }
    return Buffer.from(out);
  };
  return rows.map((r) =>
    r.map((v, i) =>
      typeof v !== 'string'
        ? v
        : blobAt.has(i)
          ? `\\x${bytesOf(v).toString('hex')}`
          : intervalAt.has(i)
            ? v.replace(/\bmonths\b/g, 'mons').replace(/\bmonth\b/g, 'mon')
            : v,
    ),
  );
}

export function asPostgresFloatText(rows: unknown[][]): unknown[][] {
  const special: Record<string, string> = { inf: 'Infinity', '-inf': '-Infinity', nan: 'NaN' };
  return rows.map((r) => r.map((v) => (typeof v !== 'string' ? v : (special[v] ?? v.replace(/^(-?\d+)\.0$/, '$1')))));
}
