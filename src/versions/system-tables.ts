/**
 * Rows of the gateway's system views (fdl.refs, fdl.versions, fdl.dataset, fdl.cache) for one
 * session. A user limited by grants sees only refs they may read, and only versions one of those
 * refs (or a granted `versions/…` pattern) points at, plus the version the session reads.
 */
import type { Repository, VersionInfo } from '../resolver/repository.js';
import { SYSTEM_VIEW_COLUMNS, type SystemTable, type SystemViewName } from '../text/system-views.js';
import type { Versions } from './versions.js';
import { SqlError, SQLSTATE } from '../errors.js';
import { degraded } from '../degraded.js';

type Row = SystemTable['rows'][number];
interface Ctx {
  repo: string;
  user: string;
  versionId: string;
}

export async function systemTable(
  versions: Versions,
  view: Exclude<SystemViewName, 'session'>,
  ctx: Ctx,
): Promise<SystemTable> {
  const found = versions.repository(ctx.repo);
  if (!found && view !== 'cache')
    throw new SqlError(
      SQLSTATE.undefinedTable,
      `fdl.${view} describes a repository, and database "${ctx.repo}" only lists them`,
      undefined,
      'Connect to one of the databases \\l lists.',
    );
  const repo = found!;
  switch (view) {
    case 'refs': {
      const rows: Row[] = [];
      for (const r of await repo.listRefs()) {
        if (!versions.grants.allows(ctx.user, ctx.repo, r.name)) continue;
        const info = await repo.describeVersion(r.versionId).catch(() => null);
        rows.push([
          r.name.replace(/^refs\//, ''),
          r.kind,
          r.versionId,
          info?.version.created ?? null,
          info?.signature.status ?? null,
        ]);
      }
      return {
        columns: SYSTEM_VIEW_COLUMNS.refs,
        rows,
      };
    }
    case 'versions': {
      // History along first parents, as `git log --first-parent` shows it; versions the user
      // may not read are left out (their metadata is not theirs to see).
      const visible = await visibleVersions(versions, repo, ctx);
      const rows: Row[] = [];
      let id: string | undefined = ctx.versionId;
      const seen = new Set<string>();
      while (id && !seen.has(id) && seen.size < 1000) {
        seen.add(id);
        const at: string = id;
        const info: VersionInfo | null = await repo.describeVersion(at).catch((e: unknown) => {
          degraded(
            'version_history',
            `fdl.versions history of ${ctx.repo} stops at version ${at}: ${(e as Error).message.split('\n')[0]}`,
          );
          return null;
        });
        if (!info) break;
        if (visible(id)) {
          const v = info.version as { created?: string; author?: string; message?: string };
          const hashes = await repo.dataCoverage(id).catch(() => null);
          rows.push([
            id,
            v.created ?? null,
            v.author ?? null,
            v.message ?? null,
            info.signature.signer ?? null,
            info.signature.status,
            info.expired !== null,
            hashes,
          ]);
        }
        id = info.version.parents[0];
      }
      return {
        columns: SYSTEM_VIEW_COLUMNS.versions,
        rows,
      };
    }
    case 'dataset': {
      const lease = ctx.versionId ? await versions.lease(repo, ctx.versionId) : null;
      const d = (lease?.value.dataset ?? {}) as Record<string, unknown>;
      lease?.release();
      const str = (k: string) => (typeof d[k] === 'string' ? (d[k] as string) : null);
      return {
        columns: SYSTEM_VIEW_COLUMNS.dataset,
        rows: [[str('title'), str('description'), str('license'), str('homepage'), JSON.stringify(d)]],
      };
    }
    case 'cache': {
      const { files, refs, results, verification } = versions.caches;
      const f = files.stats();
      const v = verification.stats();
      const r = refs.stats();
      const a = versions.attached;
      // The counters are the whole process's: other users' activity, other repositories in use. A
      // user limited by grants sees which caches there are and nothing of what they count.
      const hidden = versions.grants.restricts(ctx.user);
      const shown = (row: Row): Row => (hidden ? [row[0]!, ...row.slice(1).map(() => null)] : row);
      return {
        columns: SYSTEM_VIEW_COLUMNS.cache,
        rows: (
          [
            // the disk budget of remote files: its size, what running queries and views pin, the peak on disk
            [
              'files',
              f.entries,
              f.bytes,
              f.hits,
              f.misses,
              f.downloads,
              f.evictions,
              f.mismatches,
              f.maxBytes,
              f.pinnedBytes,
              f.peakBytes,
            ],
            ['refs', r.entries, null, r.hits, r.misses, r.revalidations, null, null, null, null, null],
            ['versions', a.size, null, a.hits, a.misses, a.misses, a.evictions, null, null, null, null],
            ['results', results.size, results.bytes, results.hits, results.misses, null, null, null, null, null, null],
            // local files: entries remembered, bytes hashed, ledger hits, files hashed; mismatches from every source
            ['verified', v.entries, v.hashedBytes, v.hits, v.hashed, null, null, v.mismatches, null, null, null],
          ] as Row[]
        ).map(shown),
      };
    }
  }
}

/** Which version IDs the user may see: all, or those behind a granted ref or `versions/…` pattern. */
async function visibleVersions(versions: Versions, repo: Repository, ctx: Ctx): Promise<(id: string) => boolean> {
  if (!versions.grants.restricts(ctx.user)) return () => true;
  const viaRefs = new Set<string>([ctx.versionId]);
  for (const r of await repo.listRefs())
    if (versions.grants.allows(ctx.user, ctx.repo, r.name)) viaRefs.add(r.versionId);
  return (id) => viaRefs.has(id) || versions.grants.allows(ctx.user, ctx.repo, `versions/${id}`);
}
