/**
 * Texts the result cache has answered, remembered across sessions: a statement text a session planned,
 * ran and recorded into the shared result cache is answered for a later session from the recorded rows
 * without being planned again (no rewrite, analysis, admission, nor DuckDB's prepare, which costs 2–10
 * ms for the catalog emulation's big views). psql opens a session per command and sends each catalog
 * text once, so its statements otherwise pay that prepare even when their rows come from the cache.
 *
 * What the answer needs besides the rows — RowDescription's fields, the result-cache key (the command
 * tag is `SELECT <its row count>`), what the statement reads of its version (re-checked before the
 * answer) — is kept under the client's text and the scope that planning reads: the user, the version,
 * its database and attachment, the session's output settings (search_path, TimeZone … : their
 * fingerprint), the grants' generation (a reload plans everything again) and the result formats. Only
 * texts without parameters, run without declared types. Nothing is remembered that was not recorded,
 * and so nothing that is not repeatable (analysis/determinism.ts). Bounded by bytes, least recently
 * used first, and an answer leaves with its result-cache entry.
 */
import { LRUCache } from 'lru-cache';
import type { ResultCache, ResultKey } from '../cache/result-cache.js';
import type { FieldDescription } from '../pg/oids.js';
import type { Statement } from '../text/classify.js';
import type { VersionLease, VersionReads } from '../versions/lease.js';
import type { PreparedStmt } from './plan.js';

/** What a later session needs to answer the text from the result cache. */
export interface RememberedAnswer {
  readonly fields: readonly FieldDescription[];
  readonly key: ResultKey;
  readonly reads: ReadonlyMap<string, VersionReads> | undefined;
}

/** Where planning's outcome holds, besides the text. */
export interface AnswerScope {
  readonly user: string;
  readonly lease: VersionLease;
  /** SessionSettings.fingerprint(): the output settings, search_path among them. */
  readonly settings: string;
  /** The grants' generation (VersionSource.generation). */
  readonly generation: number;
  readonly resultFormats: readonly number[];
}

/** Of the result cache's budget, what remembered answers may hold (at least 1 MiB). */
const SHARE_OF_RESULTS = 8;

export class AnsweredTexts {
  private readonly entries: LRUCache<string, RememberedAnswer>;
  /** Remembered texts by their result-cache entry's key: they leave with it. */
  private readonly byResult = new Map<string, Set<string>>();

  constructor(private readonly results: ResultCache) {
    this.entries = new LRUCache<string, RememberedAnswer>({
      maxSize: Math.max(1024 * 1024, Math.floor(results.maxBytes / SHARE_OF_RESULTS)),
      sizeCalculation: (a, id) =>
        2 * (id.length + results.idOf(a.key).length) + a.fields.reduce((n, f) => n + 2 * f.name.length + 64, 128),
      dispose: (a, id) => {
        const resultId = results.idOf(a.key);
        const texts = this.byResult.get(resultId);
        texts?.delete(id);
        if (texts?.size === 0) this.byResult.delete(resultId);
      },
    });
    results.onDrop((resultId) => {
      const texts = this.byResult.get(resultId);
      if (!texts) return;
      this.byResult.delete(resultId);
      for (const id of texts) this.entries.delete(id);
    });
  }

  /** A run just kept in the result cache under `key`: its answer is remembered for the text in this scope. */
  remember(text: string, scope: AnswerScope, answer: RememberedAnswer): void {
    if (!this.results.has(answer.key)) return; // too large for the cache: nothing to answer from
    const id = scopeId(text, scope);
    this.entries.set(id, answer);
    if (!this.entries.has(id)) return; // larger than the whole budget
    const resultId = this.results.idOf(answer.key);
    let texts = this.byResult.get(resultId);
    if (!texts) this.byResult.set(resultId, (texts = new Set()));
    texts.add(id);
  }

  /** The answer remembered for the text in this scope, while its rows are still cached. */
  lookup(text: string, scope: AnswerScope): RememberedAnswer | undefined {
    const answer = this.entries.get(scopeId(text, scope));
    return answer && this.results.has(answer.key) ? answer : undefined;
  }

  get size(): number {
    return this.entries.size;
  }
}

const byCache = new WeakMap<ResultCache, AnsweredTexts>();

/** The remembered answers tied to this result cache (one per cache, made on first use). */
export function answeredTexts(results: ResultCache): AnsweredTexts {
  let answered = byCache.get(results);
  if (!answered) byCache.set(results, (answered = new AnsweredTexts(results)));
  return answered;
}

/**
 * A statement answered from its remembered answer: no DuckDB statement, planned for the session's
 * version now, its result-cache key the remembered one (result-cache-policy.ts reuses it). When the
 * cache does not answer it after all, the wire plans the text (`answered` says so: wire/portal-runner.ts).
 */
export function answeredStatement(
  text: string,
  stmt: Statement,
  lease: VersionLease,
  answer: RememberedAnswer,
): PreparedStmt {
  return {
    refs: 1,
    sql: text,
    stmt,
    declaredTypes: [],
    duck: null,
    paramOids: [],
    fields: answer.fields as FieldDescription[],
    columnTypes: [],
    columnOids: [],
    leases: [],
    untyped: new Set(),
    cacheableSql: answer.key.sql,
    reads: answer.reads,
    preparedFor: lease.versionId,
    repeatable: true,
    lastResultKey: answer.key,
    answered: true,
  };
}

/** Whether a run may be remembered: a text without parameters, nothing declared (a Parse of `$1`-free text with types is another signature). */
export function rememberable(prepared: PreparedStmt, params: readonly unknown[]): boolean {
  return (
    !prepared.answered &&
    params.length === 0 &&
    prepared.paramOids.length === 0 &&
    prepared.declaredTypes.every((t) => t === 0) &&
    prepared.fields !== null &&
    prepared.untyped.size === 0
  );
}

function scopeId(text: string, s: AnswerScope): string {
  // \u0000 occurs in none of the parts (protocol strings, names, numbers)
  return [
    s.user,
    s.lease.versionId,
    s.lease.dbName,
    s.lease.attachId ?? '',
    s.settings,
    s.generation,
    s.resultFormats.join(''),
    text,
  ].join('\u0000');
}
