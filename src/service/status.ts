/**
 * The facts the status page shows, gathered from the gateway: per repository its dataset, refs,
 * recent history (signature status and what the hashes cover) and HEAD's tables; sessions; caches.
 * Nothing here names a server path, a store location or a credential.
 */
import type { CacheReport, Gateway, HeadDescription } from '../gateway.js';
import type { ConnectionInfo } from '../wire/connection.js';

/** Versions shown per repository (newest first along every ref's parents). */
const MAX_HISTORY = 40;

export interface VersionNode {
  id: string;
  created: string | null;
  author: string | null;
  message: string | null;
  parents: string[];
  /** G good and trusted, U good but untrusted, B bad, N none (git's %G?). */
  signature: string;
  signer: string | null;
  /** `catalog + data files` when files.json pins every data file, else `catalog only`. */
  hashes: string;
  expired: boolean;
}

export interface RepositoryStatus {
  name: string;
  head: HeadDescription | null;
  error: string | null;
  refs: { name: string; kind: string; versionId: string }[];
  history: VersionNode[];
}

export interface StatusSnapshot {
  generatedAt: Date;
  state: string;
  repositories: RepositoryStatus[];
  sessions: ConnectionInfo[];
  caches: CacheReport;
}

export async function gatherStatus(gateway: Gateway, state: string): Promise<StatusSnapshot> {
  const repositories = await Promise.all([...gateway.repos.keys()].map((name) => repositoryStatus(gateway, name)));
  return { generatedAt: new Date(), state, repositories, sessions: gateway.sessions(), caches: gateway.caches() };
}

async function repositoryStatus(gateway: Gateway, name: string): Promise<RepositoryStatus> {
  const repo = gateway.repos.get(name);
  const out: RepositoryStatus = { name, head: null, error: null, refs: [], history: [] };
  if (!repo) return out;
  try {
    out.refs = (await repo.listRefs()).map((r) => ({
      name: r.name.replace(/^refs\//, ''),
      kind: r.kind,
      versionId: r.versionId,
    }));
    const seen = new Set<string>();
    const queue = out.refs.map((r) => r.versionId);
    while (queue.length > 0 && out.history.length < MAX_HISTORY) {
      const id = queue.shift()!;
      if (seen.has(id)) continue;
      seen.add(id);
      const info = await repo.describeVersion(id).catch(() => null);
      if (!info) continue;
      const v = info.version;
      out.history.push({
        id,
        created: v.created ?? null,
        author: v.author ?? null,
        message: v.message ?? null,
        parents: v.parents,
        signature: info.signature.status,
        signer: info.signature.signer ?? null,
        hashes: v.files && Object.hasOwn(v.files, 'files.json') ? 'catalog + data files' : 'catalog only',
        expired: info.expired !== null,
      });
      queue.push(...v.parents);
    }
    out.history.sort((a, b) => (b.created ?? '').localeCompare(a.created ?? ''));
    out.head = await gateway.describeHead(name);
  } catch (e) {
    // The message of a resolver error names refs and versions, never a path.
    out.error = (e as Error).message.split('\n')[0]!;
  }
  return out;
}
