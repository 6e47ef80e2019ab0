/**
 * What native tables (versions/native-tables.ts) add to a version's first open: its views database built
 * as the views builder builds it (one thread, into a file, checkpointed and detached), with every table a
 * view, with the tables that fit the ceilings native, and native with each copy then measured by its DuckDB
 * blocks (the gateway's build: lake/attach.ts nativeBlockBytes, one more checkpoint), taking turns. Wall and CPU
 * ms per build, and the file's size.
 *
 *   npx tsc -p . && node dist/bench/native-build.js --root <repository folder> [--rounds 5] [--version <id>]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { attachCatalog, openCatalog } from '../src/lake/index.js';
import { NATIVE_TABLE_MAX_BYTES, NATIVE_VERSION_MAX_BYTES, nativeTables } from '../src/versions/native-tables.js';
import { repoVersions } from '../test/support/lake-fixtures.js';

const args = process.argv.slice(2);
const arg = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const root = arg('root');
if (!root) throw new Error('--root <repository folder>');
const rounds = Number(arg('rounds') ?? 5);
const versions = repoVersions(root, 'bench', null);
const v = versions.find((x) => x.id === arg('version')) ?? versions.at(-1)!;
const dir = mkdtempSync(join(tmpdir(), 'fdl-native-build-'));
const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await instance.connect();
const catalog = await openCatalog(conn, v.catalogFile, 'meta');
const locate = (rel: string) => join(v.root, v.dataDir, rel);
const native = nativeTables(catalog, () => true);
const parquet = catalog.tables.reduce((n, t) => n + t.files.reduce((m, f) => m + f.size, 0), 0);
process.stdout.write(
  `version ${v.id}: ${catalog.tables.length} tables, ${(parquet / 1e6).toFixed(2)} MB of Parquet; ${native.size} native; load ${loadavg()[0]!.toFixed(1)}\n`,
);
type Kind = 'views' | 'native' | 'measured';
const runs: Record<Kind, { wall: number[]; cpu: number[]; bytes: number }> = {
  views: { wall: [], cpu: [], bytes: 0 },
  native: { wall: [], cpu: [], bytes: 0 },
  measured: { wall: [], cpu: [], bytes: 0 },
};
const kinds: Kind[] = ['views', 'native', 'measured'];
let n = 0;
for (let r = 0; r < rounds; r++) {
  for (const kind of [...kinds.slice(r % 3), ...kinds.slice(0, r % 3)]) {
    const file = join(dir, `v${++n}.duckdb`);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await attachCatalog(conn, catalog, 'built', locate, {
      file,
      native: kind === 'views' ? new Set() : native,
      ...(kind === 'measured'
        ? { nativeBlockBytes: { table: NATIVE_TABLE_MAX_BYTES, version: NATIVE_VERSION_MAX_BYTES } }
        : {}),
    });
    await conn.run('CHECKPOINT built');
    await conn.run('DETACH built');
    const used = process.cpuUsage(cpu0);
    runs[kind].wall.push(performance.now() - t0);
    runs[kind].cpu.push((used.user + used.system) / 1000);
    runs[kind].bytes = statSync(file).size;
    rmSync(file, { force: true });
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [kind, x] of Object.entries(runs))
  process.stdout.write(
    `  ${kind.padEnd(8)} wall ms ${x.wall.map((w) => w.toFixed(0)).join(' · ')} (median ${median(x.wall).toFixed(0)}), CPU ms median ${median(x.cpu).toFixed(0)}, file ${(x.bytes / 1e6).toFixed(2)} MB\n`,
  );
conn.closeSync();
instance.closeSync();
rmSync(dir, { recursive: true, force: true });
