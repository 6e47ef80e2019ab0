/**
 * Which runs the shared result cache may answer or keep. A repeatable statement (analysis/determinism.ts)
 * already run against this version with the same parameters, formats and output settings is answered
 * with the DataRows recorded then; a repeatable statement not yet cached is recorded as it streams and
 * kept only if it ran to the end against the version it was keyed by. Decisions are values; the wire
 * sends the bytes.
 */
import { ResultRecorder, type CachedResult, type ResultCache, type ResultKey } from '../cache/result-cache.js';
import { isRepeatable } from '../analysis/determinism.js';
import { isSessionFreeCatalogObject } from '../pg/catalog/install.js';
import type { VersionLease } from '../versions/lease.js';
import type { Statement } from '../text/classify.js';
import type { PreparedStmt } from './plan.js';
import type { SessionSettings } from './settings.js';
import {
  answeredStatement,
  answeredTexts,
  rememberable,
  type AnswerScope,
  type RememberedAnswer,
} from './answered-texts.js';

/** The shared result cache and what decides which statements it may answer. */
export interface SessionResults {
  readonly cache: ResultCache;
  /** Built-in functions DuckDB declares consistent (analysis/determinism.ts). */
  readonly consistentFunctions: ReadonlySet<string>;
}

/** One run of a prepared statement, as the result depends on it. */
export interface ResultRun {
  readonly resultFormats: readonly number[];
  readonly paramFormats: readonly number[];
  readonly params: readonly (Buffer | null)[];
}

/** A result being recorded for the cache, and under which key. */
export interface Recording {
  readonly recorder: ResultRecorder;
  readonly key: ResultKey;
  /** Kept, its answer is remembered for the client's text in this scope (answered-texts.ts). */
  readonly remember?: { text: string; scope: AnswerScope; answer: RememberedAnswer };
}

export type CacheDecision =
  { kind: 'bypass' } | { kind: 'hit'; result: CachedResult } | { kind: 'record'; recording: Recording };

const BYPASS: CacheDecision = { kind: 'bypass' };

/** The run's key; a statement run again without parameters, as before, reuses its last one. */
function keyFor(
  prepared: PreparedStmt,
  sql: string,
  user: string,
  lease: VersionLease,
  settings: string,
  run: ResultRun,
): ResultKey {
  const last = prepared.lastResultKey;
  if (
    last &&
    run.params.length === 0 &&
    last.params.length === 0 &&
    last.user === user &&
    last.versionId === lease.versionId &&
    last.database === lease.dbName &&
    last.attachId === (lease.attachId ?? '') &&
    last.settings === settings &&
    sameCodes(last.resultFormats, run.resultFormats) &&
    sameCodes(last.paramFormats, run.paramFormats)
  ) {
    return last;
  }
  const key: ResultKey = {
    versionId: lease.versionId,
    database: lease.dbName,
    attachId: lease.attachId ?? '',
    user,
    sql,
    settings,
    paramTypes: prepared.paramOids,
    resultFormats: run.resultFormats,
    paramFormats: run.paramFormats,
    params: run.params,
  };
  if (run.params.length === 0) prepared.lastResultKey = key;
  return key;
}

/** The most parameter bytes a remembered result is keyed by. */
const MAX_KEYED_PARAM_BYTES = 64 * 1024;

function paramBytes(params: readonly (Buffer | null)[]): number {
  let n = 0;
  for (const p of params) n += p?.length ?? 0;
  return n;
}

function sameCodes(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class ResultCachePolicy {
  constructor(
    private readonly results: SessionResults | null,
    /** The session's authenticated user: part of every key. */
    private readonly user: string,
    /** The grants' generation now (VersionSource.generation): remembered answers hold within one. */
    private readonly generation: () => number = () => 0,
  ) {}

  /**
   * A text new to the session answered as another session's run of it was, without planning it
   * (answered-texts.ts): a simple Query's statement, in the scope that run was planned in, while its
   * rows are cached. null: plan it.
   */
  answered(text: string, stmt: Statement, lease: VersionLease | null, settings: SessionSettings): PreparedStmt | null {
    if (!this.results?.cache.enabled || stmt.kind !== 'query' || text === '' || !lease) return null;
    if (settings.get('fdl.result_cache') === 'off') return null;
    const answer = answeredTexts(this.results.cache).lookup(text, this.scope(lease, settings, []));
    return answer ? answeredStatement(text, stmt, lease, answer) : null;
  }

  private scope(lease: VersionLease, settings: SessionSettings, resultFormats: readonly number[]): AnswerScope {
    return { user: this.user, lease, settings: settings.fingerprint(), generation: this.generation(), resultFormats };
  }

  /**
   * Whether the cache may be consulted at all for this run (before the version is re-checked):
   * the session has a cache, the plan said its result may be cached, nothing of it was sent yet and
   * the session did not turn `fdl.result_cache` off.
   */
  applies(prepared: PreparedStmt, settings: SessionSettings, rowsSent: number): boolean {
    return (
      this.results !== null &&
      prepared.cacheableSql !== null &&
      rowsSent === 0 &&
      settings.get('fdl.result_cache') !== 'off'
    );
  }

  /** Answer from the cache, record this run, or neither — for the version the session reads now. */
  decide(prepared: PreparedStmt, lease: VersionLease | null, settings: SessionSettings, run: ResultRun): CacheDecision {
    const results = this.results;
    if (!results || prepared.cacheableSql === null) return BYPASS;
    // A key holds the parameters' bytes: megabytes of them were encoded and hashed on the event loop (an 8 MB text[]
    // held it 0.4 s before the parameter was even read, issue 23); such runs are not worth remembering.
    if (paramBytes(run.params) > MAX_KEYED_PARAM_BYTES) return BYPASS;
    // A statement prepared before the session's branch moved is never cached under the new version.
    if (!lease || prepared.preparedFor !== lease.versionId) return BYPASS;
    const first = prepared.repeatable === undefined; // its first run since it was planned
    if (first) {
      prepared.repeatable =
        !!prepared.analysis &&
        isRepeatable(
          prepared.analysis,
          results.consistentFunctions,
          lease.dbName,
          { isVersionTable: (s, t) => lease.hasTable(s, t), isVersionFunction: (f) => lease.definesFunction(f) },
          isSessionFreeCatalogObject,
        );
    }
    if (!prepared.repeatable) return BYPASS;
    const key = keyFor(prepared, prepared.cacheableSql, this.user, lease, settings.fingerprint(), run);
    const hit = results.cache.get(key);
    if (hit) {
      // a text just planned whose rows a run in another scope left (before a reload): remembered for this one
      const r = first ? this.rememberedRun(prepared, lease, settings, run, key) : undefined;
      if (r) answeredTexts(results.cache).remember(r.text, r.scope, r.answer);
      return { kind: 'hit', result: hit };
    }
    const recorder = new ResultRecorder(results.cache.maxEntryBytes);
    return {
      kind: 'record',
      recording: { recorder, key, remember: this.rememberedRun(prepared, lease, settings, run, key) },
    };
  }

  /** What to remember of this run for its text (answered-texts.ts), when it may be. */
  private rememberedRun(
    prepared: PreparedStmt,
    lease: VersionLease,
    settings: SessionSettings,
    run: ResultRun,
    key: ResultKey,
  ): Recording['remember'] {
    if (!rememberable(prepared, run.params)) return undefined;
    const answer = { fields: prepared.fields!, key, reads: prepared.reads };
    return { text: prepared.sql, scope: this.scope(lease, settings, run.resultFormats), answer };
  }

  /** A run recorded to its end: kept only if the session still reads the version it was keyed by. */
  keep(recording: Recording, versionNow: string | undefined, rowCount: number): void {
    if (!this.results || versionNow !== recording.key.versionId) return;
    const result = recording.recorder.finish(rowCount);
    if (!result) return;
    this.results.cache.set(recording.key, result);
    const r = recording.remember;
    // a reload meanwhile: the run was planned under the grants before it
    if (r && r.scope.generation === this.generation())
      answeredTexts(this.results.cache).remember(r.text, r.scope, r.answer);
  }
}
