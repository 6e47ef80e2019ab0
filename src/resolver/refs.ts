/**
 * Ref resolution (spec Part 2): a requested name → a version, by the first rule that matches (HEAD,
 * full and short ref names, version IDs and their prefixes), through the short-TTL ref cache; tags
 * never move (the tag ledger), branches only forward (the branch ledger), and a resolution is reused
 * while every read it depends on is fresh.
 */
import { SqlError, SQLSTATE, isSqlError } from '../errors.js';
import type { ObjectStore } from '../store/store.js';
import type { Freshness, RefCache } from '../cache/ref-cache.js';
import type { StateMap } from '../state/state-map.js';
import type { TagLedger } from '../state/tag-ledger.js';
import {
  isValidShortName,
  isVersionId,
  parseRefFile,
  versionPrefixMatches,
  refKind,
  invalidRefName,
  type RefKind,
} from './names.js';
import { parseRefsJson } from './records.js';
import type { RefInfo, Resolution } from './types.js';
import type { VersionMeta, VersionMetas } from './version-meta.js';

export const MAX_REF = 4096;
/** Resolutions remembered at once (requested names are the clients'; valid ones are few). */
const MAX_RESOLUTIONS = 1024;
const MAX_REFS_JSON = 8 * 1024 * 1024;
/** Versions walked at most to prove that a branch moved forward (a longer history is refused, not trusted). */
const MAX_ANCESTRY = 100_000;

export class RefResolver {
  private refsDir: { present: boolean; at: number } | null = null;
  /** Resolutions while every read they depend on is within the ref TTL: one resolution per TTL, not per statement. */
  private readonly resolutions = new Map<string, { res: Resolution; seen: Freshness }>();

  constructor(
    private readonly repoName: string,
    private readonly store: ObjectStore,
    private readonly refs: RefCache,
    private readonly metas: VersionMetas,
    /** Tags never move: the first version a tag was seen at. */
    private readonly ledger: TagLedger,
    /** branch → the newest version this gateway served on it (its high-water mark). */
    private readonly branches: StateMap<string>,
    private readonly hasTrustedKeys: boolean,
  ) {}

  /**
   * Spec Part 2: the first rule that matches decides. A resolution is reused while every ref it read
   * is within the ref TTL, so it is never staler than reading the refs themselves would be.
   * `shown`: which refs an unknown-ref hint may name (a user limited by grants sees only theirs).
   */
  async resolve(requested: string, shown?: (fullRef: string) => boolean): Promise<Resolution> {
    const known = this.resolutions.get(requested);
    if (known && this.refs.isFresh(known.seen)) return known.res;
    const seen = this.refs.freshness();
    const res = await this.resolveNow(requested, seen, shown);
    if (this.resolutions.size >= MAX_RESOLUTIONS) this.resolutions.clear(); // names are the clients'
    this.resolutions.set(requested, { res, seen });
    return res;
  }

  /** The version `requested` resolves to while its last resolution is fresh (no read, no wait), else undefined. */
  freshVersion(requested: string): string | undefined {
    const known = this.resolutions.get(requested);
    return known && this.refs.isFresh(known.seen) ? known.res.versionId : undefined;
  }

  private async resolveNow(
    requested: string,
    seen: Freshness,
    shown?: (fullRef: string) => boolean,
  ): Promise<Resolution> {
    const name = requested;
    if (name === '' || name === 'HEAD') return this.resolveHead(requested, seen, shown);
    if (name.startsWith('refs/')) return this.resolveFull(name, requested, seen, shown);
    if (/^(heads|tags|requests)\//.test(name)) return this.resolveFull(`refs/${name}`, requested, seen, shown);
    if (isVersionId(name) && (await this.metas.exists(name, seen))) {
      return { requested, ref: null, kind: 'version', versionId: name };
    }
    if (!isValidShortName(name) || !refKind(`refs/heads/${name}`) || !refKind(`refs/tags/${name}`))
      throw invalidRefName(name);
    const head = `refs/heads/${name}`;
    const tag = `refs/tags/${name}`;
    const [h, t] = await Promise.all([this.readRef(head, seen), this.readRef(tag, seen)]);
    if (h !== null && t !== null) {
      throw new SqlError(
        SQLSTATE.invalidCatalogName,
        `ambiguous ref: ${head}, ${tag} ("${name}" in repository ${this.repoName})`,
        `${head} -> ${h}, ${tag} -> ${t}`,
        `use heads/${name} or tags/${name}`,
      );
    }
    if (h !== null || t !== null) await this.refuseRefLikePrefix(name, h ?? t!, h !== null ? head : tag, shown);
    if (h !== null) return this.finish(requested, head, 'branch', h, seen);
    if (t !== null) return this.finish(requested, tag, 'tag', t, seen);
    const byPrefix = await this.versionByPrefix(name, shown);
    if (byPrefix !== null) return { requested, ref: null, kind: 'version', versionId: byPrefix };
    const tried = [...(isVersionId(name) ? [`versions/${name}/version.json`] : []), head, tag];
    // a short hex name may be meant as a version ID prefix (the status page shows 8 digits)
    const digits = /^[0-9a-f][0-9a-f-]*$/.test(name) ? name.replace(/-/g, '').length : 0;
    const short =
      digits >= 4 && digits < 8
        ? `a version ID prefix needs at least 8 hex digits ("${name}" has ${digits})`
        : undefined;
    const refs = await this.refsHint(shown);
    throw new SqlError(
      SQLSTATE.invalidCatalogName,
      `unknown ref "${name}" in repository ${this.repoName} (tried ${tried.join(', ')})`,
      undefined,
      [short, refs].filter(Boolean).join('; ') || undefined,
    );
  }

  private async resolveFull(
    full: string,
    requested: string,
    seen: Freshness,
    shown?: (fullRef: string) => boolean,
  ): Promise<Resolution> {
    const kind = refKind(full);
    if (!kind) throw invalidRefName(requested);
    const id = await this.readRef(full, seen);
    if (id === null)
      throw new SqlError(
        SQLSTATE.invalidCatalogName,
        `unknown ref "${requested}" in repository ${this.repoName} (tried ${full})`,
        undefined,
        await this.refsHint(shown),
      );
    return this.finish(requested, full, kind, id, seen);
  }

  private async resolveHead(
    requested: string,
    seen: Freshness,
    shown?: (fullRef: string) => boolean,
  ): Promise<Resolution> {
    const body = await this.refs.get(this.store, 'HEAD', MAX_REF, seen);
    let target = 'refs/heads/main';
    if (body !== null) {
      const text = body.toString('utf8').trim();
      const m = /^ref:\s*(\S+)$/.exec(text);
      if (m && refKind(m[1]!)) target = m[1]!;
      else if (isVersionId(text)) {
        // detached HEAD, accepted liberally — but, like a branch, only ever forward (an attacker's review rolled it back)
        const r = await this.finish(requested, null, 'version', text, seen);
        await this.checkForward('HEAD', text);
        return r;
      } else
        throw new SqlError(
          SQLSTATE.invalidCatalogName,
          `malformed ref HEAD in repository ${this.repoName}: expected "ref: refs/heads/<name>" or a version ID`,
          `the file has ${body.length} bytes`,
        );
    }
    const id = await this.readRef(target, seen);
    if (id === null)
      throw new SqlError(
        SQLSTATE.invalidCatalogName,
        `unknown ref "${target}" (HEAD) in repository ${this.repoName}`,
        undefined,
        await this.refsHint(shown),
      );
    const r = await this.finish(requested, target, refKind(target)!, id, seen);
    // what HEAD gives goes only forward too, whichever branch it names: a store writer who pointed it at an older
    // branch rolled back every reader of the plain repository name (attacker review, session 53)
    await this.checkForward('HEAD', id);
    return r;
  }

  private async finish(
    requested: string,
    ref: string | null,
    kind: RefKind | 'version',
    versionId: string,
    seen?: Freshness,
  ): Promise<Resolution> {
    if (!(await this.metas.exists(versionId, seen))) {
      throw new SqlError(
        SQLSTATE.invalidCatalogName,
        `dangling ref: ${ref ?? 'HEAD'} -> ${versionId} in repository ${this.repoName} (versions/${versionId}/version.json does not exist)`,
      );
    }
    if (kind === 'tag' && ref) await this.ledger.check(ref, versionId, this.repoName);
    // Branches and review requests move, and only forward; tags never move (the ledger above).
    if ((kind === 'branch' || kind === 'request') && ref) await this.checkForward(ref, versionId);
    return { requested, ref, kind, versionId };
  }

  /**
   * A branch (a request, a detached HEAD) only moves forward: once it was served at version V, it must resolve to V or to a
   * version that descends from V, else a store writer could move it back to an older signed version.
   * The mark is recorded for trusted (G) versions only: an unsigned version a store writer wrote can
   * never pin a branch, and without trusted keys (where a store writer can publish anything) there
   * is no mark.
   */
  private async checkForward(ref: string, versionId: string): Promise<void> {
    const mark = this.branches.get(ref);
    if (mark !== undefined && mark !== versionId) {
      const path = await this.descendsFrom(versionId, mark);
      if (!path.found) throw this.notForward(ref, mark, path.untrusted);
    }
    if (mark === versionId) return;
    let meta: VersionMeta;
    try {
      meta = await this.metas.meta(versionId);
    } catch (e) {
      if (isSqlError(e) && (e.sqlstate === SQLSTATE.invalidCatalogName || e.sqlstate === SQLSTATE.dataCorrupted))
        return; // opening it reports why; nothing is recorded
      throw e;
    }
    if (meta.signature.status === 'G') await this.branches.set(ref, versionId);
  }

  /** Why a branch that this gateway served at `mark` is refused where it points now. */
  private notForward(ref: string, mark: string, untrusted: string | undefined): SqlError {
    const what = ref === 'HEAD' ? 'HEAD' : ref.startsWith('refs/requests/') ? `request ${ref}` : `branch ${ref}`;
    // Only the recorded version is named (what the branch gave its readers): neither the version it
    // names now nor the unsigned link, which may be any version of the repository (another ref's, one
    // the reader has no grant for); the operator finds both in the ref file and version.json.
    if (untrusted !== undefined)
      // Not a rollback as far as anyone can tell: the link that would show it is forward is unsigned.
      return new SqlError(
        SQLSTATE.dataCorrupted,
        `${what} of repository ${this.repoName} moved on through an unsigned version: its history reaches version ${mark}, which this gateway served on it, only through a version no trusted key signed; refusing it`,
        `a branch may only move forward through versions signed by a trusted key; the state directory records ${ref} at ${mark}`,
        'sign every version published on a branch (fdl import/publish/delete/update --sign-key); an unsigned version cannot carry a branch forward for a gateway that trusts keys',
      );
    return new SqlError(
      SQLSTATE.dataCorrupted,
      `${what} of repository ${this.repoName} moved back: it no longer leads to version ${mark}, which this gateway served on it; refusing it as a rollback`,
      `the state directory records ${ref} at ${mark}; a branch may only move to that version or one of its descendants (version.json parents)`,
      ref === 'HEAD'
        ? 'if HEAD was pointed at another branch on purpose, remove its HEAD entry from the branch ledger in the state directory'
        : 'if the branch was reset on purpose, remove its entry from the branch ledger in the state directory',
    );
  }

  /**
   * Whether `ancestor` is `id` or reached from it by parent links. Past `id` itself only the links
   * of trusted (G) versions are followed when keys are configured: a store writer can write any
   * unsigned version.json, and a forged parent link must not bridge an old signed version to the mark.
   * `untrusted` names the first such version whose links were not followed, for the refusal's wording.
   */
  private async descendsFrom(id: string, ancestor: string): Promise<{ found: boolean; untrusted?: string }> {
    const queue = [id];
    const seen = new Set(queue);
    let untrusted: string | undefined;
    for (let v = queue.shift(); v !== undefined; v = queue.shift()) {
      if (v === ancestor) return { found: true };
      let meta: VersionMeta;
      try {
        meta = await this.metas.meta(v);
      } catch (e) {
        if (isSqlError(e) && (e.sqlstate === SQLSTATE.invalidCatalogName || e.sqlstate === SQLSTATE.dataCorrupted))
          continue; // absent or unusable: a dead end
        throw e;
      }
      if (v !== id && this.hasTrustedKeys && meta.signature.status !== 'G') {
        untrusted ??= (await this.reachesThroughAny(meta.record.parents, ancestor)) ? v : undefined;
        continue;
      }
      for (const p of meta.record.parents) {
        if (seen.has(p) || !isVersionId(p)) continue;
        if (seen.size >= MAX_ANCESTRY) return { found: false, untrusted };
        seen.add(p);
        queue.push(p);
      }
    }
    return { found: false, untrusted };
  }

  /** Whether any of `ids` reaches `ancestor` by parent links of any signature status (for wording only, never a grant). */
  private async reachesThroughAny(ids: readonly string[], ancestor: string): Promise<boolean> {
    const queue = ids.filter(isVersionId);
    const seen = new Set(queue);
    for (let v = queue.shift(); v !== undefined; v = queue.shift()) {
      if (v === ancestor) return true;
      let parents: readonly string[];
      try {
        parents = (await this.metas.meta(v)).record.parents;
      } catch (e) {
        if (isSqlError(e)) continue;
        throw e;
      }
      for (const p of parents) {
        if (seen.has(p) || !isVersionId(p) || seen.size >= MAX_ANCESTRY) continue;
        seen.add(p);
        queue.push(p);
      }
    }
    return false;
  }

  /** A ref's version ID, or null when it does not exist. A ref file wins over refs.json. */
  private async readRef(full: string, seen?: Freshness): Promise<string | null> {
    const body = await this.refs.get(this.store, full, MAX_REF, seen);
    if (body !== null) return parseRefFile(body, full);
    if (!(await this.useRefsJson(seen))) return null;
    return (await this.refsJson(seen))?.refs.get(full) ?? null;
  }

  /** refs.json is the index for stores that cannot list, and the fallback when refs/ is absent. */
  private async useRefsJson(seen?: Freshness): Promise<boolean> {
    if (!this.store.list) return true;
    const now = Date.now();
    if (!this.refsDir || now - this.refsDir.at >= this.refs.ttlMs) {
      this.refsDir = { present: (await this.store.list('refs/')).length > 0, at: now };
    }
    this.refs.narrow(seen, this.refsDir.at);
    return !this.refsDir.present;
  }

  private async refsJson(seen?: Freshness): Promise<{ head?: string; refs: Map<string, string> } | null> {
    const body = await this.refs.get(this.store, 'refs.json', MAX_REFS_JSON, seen);
    return body === null ? null : parseRefsJson(body);
  }

  /** Every valid ref whose version exists (malformed, invalid and dangling refs are left out). */
  async listRefs(): Promise<RefInfo[]> {
    const out: RefInfo[] = [];
    for (const name of await this.refNames()) {
      try {
        const id = await this.readRef(name);
        if (id !== null && (await this.metas.exists(id))) out.push({ name, kind: refKind(name)!, versionId: id });
      } catch (e) {
        if (!isSqlError(e) || e.sqlstate !== SQLSTATE.invalidCatalogName) throw e;
      }
    }
    return out;
  }

  /** Names only (no per-ref reads), so an error message costs at most one listing. */
  private async refNames(): Promise<string[]> {
    if (this.store.list && !(await this.useRefsJson()))
      return (await this.store.list('refs/')).filter((k) => refKind(k));
    return [...((await this.refsJson())?.refs.keys() ?? [])].sort();
  }

  private async refsHint(visible?: (fullRef: string) => boolean): Promise<string | undefined> {
    try {
      const refs = (await this.refNames()).filter((r) => !visible || visible(r));
      if (refs.length === 0) return undefined;
      const shown = refs.slice(0, 12).map((r) => r.replace(/^refs\//, ''));
      return `available refs: ${shown.join(', ')}${refs.length > shown.length ? ', …' : ''}`;
    } catch {
      return undefined;
    }
  }

  /**
   * A ref whose name is also a version ID prefix (`deadbeef`) while a version the client may see starts with it and
   * the ref names another: 3D000, as two refs of one name are, Git's "ambiguous" (the ref had silently taken
   * the prefix over, session 57's attacker review). Versions the client may not see are no rival (no existence oracle).
   */
  private async refuseRefLikePrefix(
    name: string,
    refVersion: string,
    full: string,
    shown?: (fullRef: string) => boolean,
  ): Promise<void> {
    // a ref the client may not see is refused as any ungranted name is, later (no ambiguity told about it)
    if (versionPrefixMatches(name, []) === null || (shown && !shown(full))) return;
    const ids = this.store.list
      ? (await this.store.list('versions/'))
          .map((k) => /^versions\/([^/]+)\/version\.json$/.exec(k)?.[1])
          .filter((id): id is string => id !== undefined)
      : (await this.listRefs()).map((r) => r.versionId);
    const rivals = versionPrefixMatches(name, ids)!.filter(
      (id) => id !== refVersion && (!shown || shown(`versions/${id}`)),
    );
    if (rivals.length === 0) return;
    const short = full.replace(/^refs\//, '');
    throw new SqlError(
      SQLSTATE.invalidCatalogName,
      `ambiguous ref: ${full} and a version ID prefix ("${name}" in repository ${this.repoName})`,
      `${full} -> ${refVersion}; versions starting with it: ${rivals.join(', ')}`,
      `use ${short} for the ref, or more digits of the version ID`,
    );
  }

  /**
   * Git's short IDs: a name that is no ref and holds at least 8 hex digits (dashes allowed) names
   * the one complete version whose ID starts with it; two or more are 3D000, listing only those
   * `shown` lets the client see. Versions are those the store lists, else those the refs name.
   */
  private async versionByPrefix(name: string, shown?: (fullRef: string) => boolean): Promise<string | null> {
    if (versionPrefixMatches(name, []) === null) return null;
    const ids = this.store.list
      ? (await this.store.list('versions/'))
          .map((k) => /^versions\/([^/]+)\/version\.json$/.exec(k)?.[1])
          .filter((id): id is string => id !== undefined)
      : (await this.listRefs()).map((r) => r.versionId);
    const matches = versionPrefixMatches(name, ids)!;
    if (matches.length === 1) return (await this.metas.exists(matches[0]!)) ? matches[0]! : null;
    if (matches.length === 0) return null;
    const visible = matches.filter((id) => !shown || shown(`versions/${id}`));
    throw new SqlError(
      SQLSTATE.invalidCatalogName,
      `ambiguous version ID prefix "${name}" in repository ${this.repoName}: ${matches.length} versions start with it`,
      visible.length ? `candidates: ${visible.join(', ')}` : undefined,
      'give more digits of the version ID',
    );
  }
}
