/**
 * Statement planning: from a query's text to a plan the wire can run — system views expanded, the
 * PostgreSQL rewrite (only where needed), pinned "NAME@REF" versions attached, one analysis,
 * admission (analysis/containment.ts), the DuckDB prepare, the columns as Execute will send them, and
 * whether the result may be cached. No protocol: the plan is a value (PreparedStmt).
 */
import type { DuckDBPreparedStatement } from '@duckdb/node-api';
import { DuckDBTypeId, StatementType, VARCHAR } from '@duckdb/node-api';
import { isSqlError, SqlError, SQLSTATE } from '../errors.js';
import type { Statement } from '../text/classify.js';
import { fromDuckDB } from '../engine/duckdb-errors.js';
import {
  declaredParamSql,
  duckTypeForOid,
  inferParamOids,
  paramContext,
  shapeParamType,
  valueTypedParam,
} from '../pg/param-types.js';
import { replaceParams } from '../text/split.js';
import { parsePg, parsePrintedPg } from '../pg/pg-parse.js';
import { catalogColumnOid, catalogTypeOid } from '../pg/catalog/index.js';
import { rewriteForDuckDBDetailed } from '../pg/rewrite.js';
import type { RelationTypes } from '../pg/operand-types.js';
import { FLOAT_CHECK_CALL } from '../pg/float-range.js';
import { withDeclaredCasts } from '../pg/declared-casts.js';
import { needsPgRewrite } from '../pg/rewrite-precheck.js';
import { refuseCaseMismatch } from '../pg/identifier-case.js';
import { OFF_THREAD_CHARS, rewriteOffThread } from '../engine/text-pool.js';
import { refuseOverComposed } from '../text/composed-ceiling.js';
import { refuseSideEffects } from '../analysis/side-effects.js';
import { refuseInternalNames } from '../analysis/containment.js';
import { refuseInParameter } from '../pg/in-parameter.js';
import { refuseParamConflicts, refuseUntypedParams } from '../pg/param-conflicts.js';
import { refuseAmbiguousOrderBy } from '../pg/order-by-ambiguity.js';
import { postgresColumnNames } from '../pg/column-names.js';
import { shownColumnName } from '../pg/inner-names.js';
import { keptTypmodsFor } from '../pg/result-typmods.js';
import { resultShape } from '../pg/result-shape.js';
import { choiceTypmod, columnSources } from '../analysis/column-sources.js';
import { analyze, analyzeRewritten } from '../analysis/analysis.js';
import { respellCatalogNames } from '../analysis/catalog-names.js';
import {
  expandSystemViews,
  referencedSystemViews,
  type SystemTable,
  type SystemViewName,
} from '../text/system-views.js';
import { OID, pgFieldFor, pgTypeLen } from '../pg/oids.js';
import { releaseAll, type PlanningContext, type PreparedStmt } from './plan.js';
import { admitFor, fetchTables, pinVersionCatalogs } from './plan-reads.js';
import { counted, spent, stageClock, timed } from '../stages.js';

/** Longest text given to the PostgreSQL grammar on the event loop for parameter types; longer ones keep DuckDB's reading. */
export const PG_GRAMMAR_MAX_CHARS = 64 * 1024;
/** Texts the PostgreSQL grammar parses on the event loop at most this long (longer ones on the text thread). */
const REWRITE_ON_LOOP_CHARS = 2 * 1024;

/**
 * The session's version's tables as a statement's names reach them, for the rewrite (pg/operand-types.ts): a
 * schema's name as DuckDB's catalog reads it (`public` is `main` in a version without one), a bare name in the first
 * schema of the search path that has a relation of that name (DuckDB's search path is the version's schemas on it,
 * session/settings.ts).
 */
function relationTypes(ctx: PlanningContext): RelationTypes | undefined {
  const lease = ctx.lease;
  const columns = lease?.relationColumns?.bind(lease);
  if (!lease || !columns) return undefined;
  const schemas = ctx.settings.versionSchemas();
  const path = ctx.settings.searchSchemas();
  const search = path.length > 0 ? path : ['main'];
  return {
    key: JSON.stringify([lease.repo, lease.versionId, search]),
    columns: (schema, name) => {
      if (schema !== undefined)
        return columns(schema === 'public' && !schemas.includes('public') ? 'main' : schema, name) ?? undefined;
      for (const s of search) {
        const found = columns(s, name);
        if (found !== undefined) return found ?? undefined;
      }
      return undefined;
    },
  };
}

/** Plan a query: system views, PostgreSQL rewrite, pinned versions, one analysis, admission, DuckDB prepare. */
export async function planQuery(
  ctx: PlanningContext,
  base: PreparedStmt,
  stmt: Extract<Statement, { kind: 'query' | 'copyOut' }>,
): Promise<void> {
  const declaredTypes = base.declaredTypes;
  const clientText = stmt.kind === 'copyOut' ? stmt.query : stmt.sql;
  let planning = stageClock();
  refuseInternalNames(clientText);
  refuseInParameter(clientText);
  const source = await withSystemViews(ctx, clientText);
  if (source !== clientText) base.systemViews = true;
  // PostgreSQL catalog objects and syntax are rewritten onto the compatibility schema.
  // The PostgreSQL grammar (WASM, synchronous) runs on a worker thread for long texts, and for texts of a few KiB
  // it must parse: its WebAssembly memory only grows, and the worker's is given back when the gateway is idle
  // (480 distinct 7 KB texts had kept the serving process 73-84 MiB above its boot RSS for good).
  // Parameters the client declared float8, date… are cast so in the text the rewrite reads (pg/declared-casts.ts).
  const written = withDeclaredCasts(source, declaredTypes);
  const onLoop =
    written.length <= REWRITE_ON_LOOP_CHARS || (written.length <= OFF_THREAD_CHARS && !needsPgRewrite(written));
  // (the text thread knows no version: its rewrite keeps every float check)
  const rewrite = onLoop
    ? rewriteForDuckDBDetailed(written, relationTypes(ctx))
    : await rewriteOffThread(written, ctx.user);
  let sql = rewrite.sql;
  // `db.information_schema.tables` is the emulation's answer for this session's database only.
  for (const { db, name } of rewrite.catalogsNamed ?? []) {
    if (db !== ctx.repo && !db.startsWith(`${ctx.repo}@`))
      throw new SqlError(SQLSTATE.featureNotSupported, `cross-database references are not implemented: "${name}"`);
  }
  try {
    sql = await pinVersionCatalogs(ctx, sql, base.leases);
    // Whatever the gateway composed from the client's text stays within a bound of it (54001).
    refuseOverComposed(source, sql);
    if (sql !== source) for (const _ of sql.matchAll(FLOAT_CHECK_CALL)) counted('float_check');
    base.composedChars = sql.length;
    spent('planning', planning);
    // A rewritten text and the client's own (its column names) are parsed in one DuckDB call.
    const parsing =
      rewrite.sql === source
        ? analyze(ctx.conn, sql, ctx.user).then((a) => ({ analysis: a, named: undefined }))
        : analyzeRewritten(ctx.conn, sql, source, ctx.user);
    // While DuckDB parses, PostgreSQL's grammar reads what the parameters' types need (paramContext below:
    // memoized by text), on the event loop that would otherwise wait.
    if (sql.includes('$') && source.length <= PG_GRAMMAR_MAX_CHARS && !allDeclared(sql, declaredTypes)) {
      parsePrintedPg(sql);
      if (source !== sql) parsePg(source);
    }
    const first = await parsing;
    let analysis = first.analysis;
    // `<repo>.schema.t` and `public.t` respelled where DuckDB's parse put them (analysis/catalog-names.ts).
    planning = stageClock();
    const respelled = ctx.lease
      ? respellCatalogNames(analysis.sql, analysis.relations, {
          repo: ctx.repo,
          versionDb: ctx.lease.dbName,
          schemas: ctx.settings.versionSchemas(),
        })
      : null;
    spent('planning', planning);
    if (respelled !== null) analysis = await analyze(ctx.conn, respelled, ctx.user);
    // What DuckDB runs is what its parse admitted: the same text, or EXPLAIN's head spelled by the gateway.
    sql = analysis.sql;
    const reads = await timed('admission', () => admitFor(ctx, analysis, base, rewrite.rewritten));
    // A quoted name with an upper-case letter names only what is spelled so (pg/identifier-case.ts).
    await refuseCaseMismatch(ctx.conn, source);
    const pruning = stageClock();
    // `SELECT count(*) FROM t` of a local version: rows the catalog counts exactly are not read
    if (reads.length === 0 && base.leases.length === 0)
      sql = (await ctx.lease?.countingStatement?.(sql, ctx.settings.searchSchemas())) ?? sql;
    // Parameters: which files the statement needs is known only with their values (readyViews).
    const mayHaveParams = sql.includes('$');
    // Every execution makes the views right for it again (readyViews): another statement may change them.
    const perValues = reads.length > 0 && mayHaveParams && hasParams(sql);
    if (reads.length)
      base.fetchOnBind = { perValues, sql, reads, prepare: () => Promise.reject(new Error('not planned')) };
    if (!perValues)
      base.holds = await fetchTables(ctx, reads, {
        sql,
        searchSchemas: ctx.settings.searchSchemas(),
        notice: (m) => ctx.notice(m),
      });
    spent('pruning', pruning);
    base.analysis = analysis;
    const declaredDuck = (n: number) => duckTypeForOid(declaredTypes[n - 1] ?? 0);
    // The engine's own line: DuckDB binds the text and only reading plans go on (analysis/side-effects.ts).
    const scope = checkScope(ctx, base);
    const planRows = await timed('bind_check', () =>
      refuseSideEffects(ctx.conn, sql, analysis, scope?.version, scope?.namespace),
    );
    const rowBound = Math.min(
      analysis.rowBound ?? Infinity,
      analysis.kind === 'query' ? (planRows ?? Infinity) : Infinity,
    );
    base.rowBound = Number.isFinite(rowBound) ? rowBound : undefined;
    const preparing = stageClock();
    // Undeclared parameters get PostgreSQL's inferred types (pg/param-types.ts), announced and prepared
    // as such. What the grammar alone fixes (a cast, LIMIT) is prepared so at once, and a probe that
    // runs whatever DuckDB makes of the text runs before: the statement is prepared once.
    // A client that declared every parameter's type leaves PostgreSQL nothing to infer: no grammar parse.
    const grammar =
      mayHaveParams && source.length <= PG_GRAMMAR_MAX_CHARS && !allDeclared(sql, declaredTypes)
        ? paramContext(source, sql)
        : null;
    // reg*/oid casts the rewrite already translated keep its reading.
    const fixedOid = (n: number): number => {
      const oid = declaredTypes[n - 1] || rewrite.paramOids?.has(n) ? 0 : (grammar?.fixed.get(n) ?? 0);
      return duckTypeForOid(oid) ? oid : 0;
    };
    const castTo = (n: number) => {
      const oid = declaredTypes[n - 1] || fixedOid(n);
      const t = duckTypeForOid(oid);
      return t ? { duckType: t, oid } : undefined;
    };
    // What the client declared stands, even where DuckDB has no one type for it (numeric): PostgreSQL
    // infers only the parameters left unspecified.
    const onlyInferred = (found: Map<number, number>) => {
      for (const n of found.keys()) if (declaredTypes[n - 1] || rewrite.paramOids?.has(n)) found.delete(n);
      return found;
    };
    // (inferred once per version's scope: another session's first run of the text is not probed again)
    let inferred = onlyInferred(
      grammar?.probes
        ? await inferParamOids(ctx.conn, source, sql, castTo, () => false, scope?.version)
        : new Map<number, number>(),
    );
    const typedFirst = (n: number) => castTo(n)?.duckType ?? duckTypeForOid(inferred.get(n) ?? 0);
    let oidOf = (n: number) => declaredTypes[n - 1] || fixedOid(n) || (inferred.get(n) ?? 0);
    // `$n::numeric` the rewrite left bare (typed by its value) but the client declared another type: PostgreSQL's cast of that type.
    const numericOfDeclared = (n: number) =>
      rewrite.paramOids?.get(n) === OID.numeric && !!declaredTypes[n - 1] && !valueTypedParam(declaredTypes[n - 1]);
    let duck = await prepareTyped(ctx, sql, typedFirst, oidOf, numericOfDeclared).catch((e) =>
      clientTextError(ctx, e, sql, source),
    );
    let reprepare = () => prepareTyped(ctx, sql, typedFirst, oidOf, numericOfDeclared);
    // DuckDB reports no type for a parameter under a cast: those typed here are known
    const unknown = new Set(undeterminedParams(duck).filter((n) => !typedFirst(n)));
    if (grammar && !grammar.probes && duck.parameterCount > declaredTypes.filter((t) => t !== 0).length) {
      // only comparisons left to PostgreSQL's rules: DuckDB's own types serve where it found them
      inferred = onlyInferred(
        await inferParamOids(ctx.conn, source, sql, castTo, (n) => !unknown.has(n), scope?.version),
      );
    }
    // PostgreSQL treats a parameter nothing determines as text; DuckDB needs to be told.
    // numeric (and numeric[]) stays untyped: DuckDB types it at Bind from the value's own precision and scale, as PostgreSQL's numeric keeps them.
    const typeOf = (n: number) =>
      castTo(n)?.duckType ??
      duckTypeForOid(inferred.get(n) ?? 0) ??
      (unknown.has(n) && !valueTypedParam(declaredTypes[n - 1] || rewrite.paramOids?.get(n) || inferred.get(n))
        ? 'VARCHAR'
        : undefined);
    // prepared again only when that spells the parameters differently
    const retype = [...inferred].some(
      ([n, oid]) => !typedFirst(n) && duckTypeForOid(oid) && (unknown.has(n) || paramOidFor(duck, n) !== oid),
    );
    if (retype || [...unknown].some((n) => typeOf(n) !== undefined)) {
      duck.destroySync();
      oidOf = (n: number) => declaredTypes[n - 1] || fixedOid(n) || (inferred.get(n) ?? 0);
      duck = await prepareTyped(ctx, sql, typeOf, oidOf, numericOfDeclared);
      reprepare = () => prepareTyped(ctx, sql, typeOf, oidOf, numericOfDeclared);
    }
    if (base.fetchOnBind) base.fetchOnBind.prepare = reprepare;
    if (duck.statementType !== (base.analysis.kind === 'explain' ? StatementType.EXPLAIN : StatementType.SELECT)) {
      const type = StatementType[duck.statementType] ?? String(duck.statementType);
      duck.destroySync();
      throw refusal(type);
    }
    base.duck = duck;
    base.prepareAgain = reprepare;
    base.handles = ctx.handles;
    if (base.fetchOnBind) base.fetchOnBind.views = (base.holds ?? []).map((h) => h.views);
    // bound to the files pinned for it: other statements may change the views again
    for (const h of base.holds ?? []) h.bound();
    const n = duck.parameterCount;
    for (let i = 0; i < n; i++) {
      const declared = declaredTypes[i] ?? 0;
      base.paramOids.push(
        declared !== 0
          ? declared
          : (rewrite.paramOids?.get(i + 1) ?? inferred.get(i + 1) ?? (fixedOid(i + 1) || paramOidFor(duck, i + 1))),
      );
    }
    // PostgreSQL's 42P18 and 42P08 where the inference above picked a type PostgreSQL would not (pg/param-conflicts.ts)
    if (n > 0 && grammar) refuseParamConflicts(source, base.paramOids, declaredTypes);
    // then a parameter no use types and the client did not declare, or declared of a type that does not exist
    if (n > 0 || declaredTypes.length > 0) refuseUntypedParams(clientText, declaredTypes);
    base.fields = [];
    // Columns as Execute will send them, even where DuckDB binds only with parameter values (pg/result-shape.ts).
    const shape = await resultShape(
      ctx.conn,
      duck,
      sql,
      (n) => shapeParamType(base.paramOids[n - 1] ?? 0),
      (n) => !declaredDuck(n) && valueTypedParam(base.paramOids[n - 1]),
      scope?.version,
    );
    spent('prepare', preparing);
    planning = stageClock();
    for (let i = 0; i < shape.names.length; i++) {
      const name = shape.names[i]!;
      // Unknown until execution (depends on a parameter): described as text, as PostgreSQL's unknown.
      const untyped = shape.types[i] === null;
      if (untyped || shape.probed) base.untyped.add(i);
      const t = shape.types[i] ?? VARCHAR;
      const f = pgFieldFor(t);
      // A catalog column read directly keeps its PostgreSQL type under any alias; others go by name.
      const sourceType = rewrite.columnTypes?.[i];
      const catalogOid = !rewrite.rewritten
        ? undefined
        : sourceType !== undefined
          ? catalogTypeOid(sourceType, t.toString())
          : catalogColumnOid(name, t.toString());
      base.columnTypes.push(t);
      base.columnOids.push(catalogOid);
      base.fields.push({
        name,
        typeOid: catalogOid ?? f.oid,
        typeLen: catalogOid !== undefined ? pgTypeLen(catalogOid) : f.typlen,
        typeMod: catalogOid !== undefined ? -1 : f.typmod,
        format: 0,
      });
    }
    // PostgreSQL's names from the analysis; a rewritten text's own names are those of the client's text,
    // or, where DuckDB's grammar cannot read that text (`EXISTS (SELECT FROM …)`), the rewritten one's.
    const named = rewrite.sql === source ? analysis : (first.named ?? analysis);
    // (a declared type's cast named its parameter after the type: the client's text names it)
    const pgNames = postgresColumnNames(
      named?.columnNames,
      base.fields.map((f) => f.name),
      written !== source,
    );
    if (pgNames) base.fields.forEach((f, i) => (f.name = pgNames[i]!));
    // two result columns of one name that ORDER BY or DISTINCT ON names: PostgreSQL's 42702 (pg/order-by-ambiguity.ts)
    refuseAmbiguousOrderBy(
      source,
      base.fields.map((f) => shownColumnName(f.name)),
    );
    // a subquery's second column of one name is shown by that name (pg/inner-names.ts)
    for (const f of base.fields) f.name = shownColumnName(f.name);
    // A numeric computed from columns (`sum(x)`, `x * 2`, `round(x, 2)`) or written as a literal is numeric
    // with typmod -1 in PostgreSQL; DuckDB's DECIMAL(p,s) of it is its own (pg/result-typmods.ts).
    // A choice among numerics (CASE, COALESCE, NULLIF, GREATEST, LEAST) has its branches' typmod where
    // they agree, read from the tables' columns, whatever DuckDB's (or the rewrite's) type of it.
    const kept = keptTypmodsFor(named?.keptTypmods, base.fields.length);
    for (const [i, f] of base.fields.entries()) {
      const k = kept?.[i];
      if (f.typeOid !== OID.numeric || k === undefined || k === true) continue;
      f.typeMod =
        k === false || !ctx.lease
          ? -1
          : await choiceTypmod(
              ctx.conn,
              { name: ctx.lease.dbName, attachment: ctx.lease.attachId },
              ctx.settings.searchSchemas(),
              k.agree,
            );
    }
    // Plain table columns carry their table OID and attnum, as pg_class/pg_attribute give them.
    if (stmt.kind === 'query' && source === stmt.sql && !rewrite.rewritten && ctx.lease) {
      // Pinned "NAME@REF" relations (another catalog) have no sources.
      const sources = await columnSources(
        ctx.conn,
        analysis.sources,
        { name: ctx.lease.dbName, attachment: ctx.lease.attachId },
        ctx.settings.searchSchemas(),
        base.fields.length,
      );
      sources?.forEach(
        (src, i) => src && Object.assign(base.fields![i]!, { tableOid: src.tableOid, columnAttr: src.attnum }),
      );
    }
    // Candidates for the result cache: queries over the session's own version and the catalog emulation
    // (which of them repeat is decided at run, result-cache-policy.ts) — not system views (expanded) nor
    // other versions (leases). Rows of columns typed only at run are kept only from a run described as
    // planned (wire/result-stream.ts), so that a replay's RowDescription is its rows'.
    const plain = stmt.kind === 'query' && source === stmt.sql && base.leases.length === 0;
    if (ctx.cachesResults && plain && duck.statementType === StatementType.SELECT) {
      base.cacheableSql = sql;
      base.preparedFor = ctx.lease?.versionId;
    }
    // counted once planning no longer reads it (it may then be let go for another of the user's)
    ctx.handles?.used(base);
    spent('planning', planning);
  } catch (e) {
    releaseAll(base);
    throw e;
  }
}

/**
 * Where the engine line's verdict on a text holds for any session (side-effects.ts): a statement
 * over the session's own version alone, a local one (a remote version's views are rebuilt over the
 * files each statement fetches), bound with the same search path under the same configuration.
 * Undefined (bound every time) otherwise. `namespace`: the same with the version's namespace in place of
 * the version (versions/version-namespace.ts), where a plan that read nothing of the version holds alike
 * for every version of the repository whose names reach the same entries.
 */
function checkScope(ctx: PlanningContext, base: PreparedStmt): { version: string; namespace?: string } | undefined {
  const lease = ctx.lease;
  if (!lease || base.leases.length > 0 || base.holds?.length || base.fetchOnBind || base.systemViews) return undefined;
  if (lease.hasPendingTables()) return undefined;
  const generation = ctx.versions.generation?.() ?? 0;
  const path = ctx.settings.searchSchemas().join('\u0001');
  return {
    version: [ctx.repo, lease.dbName, lease.versionId, generation, path].join('\u0000'),
    namespace:
      lease.namespace === undefined
        ? undefined
        : [ctx.repo, 'namespace', lease.namespace, generation, path].join('\u0000'),
  };
}

async function withSystemViews(ctx: PlanningContext, sql: string): Promise<string> {
  const views = referencedSystemViews(sql);
  if (views.size === 0) return sql;
  const tables = new Map<SystemViewName, SystemTable>();
  for (const v of views) {
    tables.set(
      v,
      v === 'session'
        ? ctx.sessionTable()
        : await ctx.versions.systemTable(v, { repo: ctx.repo, user: ctx.user, versionId: ctx.lease?.versionId ?? '' }),
    );
  }
  return expandSystemViews(sql, tables);
}

/** `sql` prepared with parameter n cast to `typeOf(n)` (PostgreSQL OID `oidOf(n)`), left to DuckDB where undefined. */
async function prepareTyped(
  ctx: PlanningContext,
  sql: string,
  typeOf: (n: number) => string | undefined,
  oidOf: (n: number) => number,
  numericOfDeclared: (n: number) => boolean,
): Promise<DuckDBPreparedStatement> {
  const typed = replaceParams(sql, (n) => {
    const t = typeOf(n);
    return t ? declaredParamSql(n, t, oidOf(n), numericOfDeclared(n)) : undefined;
  });
  counted('duckdb_prepare');
  try {
    return await ctx.conn.prepare(typed);
  } catch (e) {
    throw fromDuckDB(e);
  }
}

/**
 * The rewrite's PostgreSQL-semantics macros (`sum(x)` as `_pgsem_sum(<x's type>, sum(x))`) over an
 * argument DuckDB cannot bind answer "more than one overload matches" (42725) where the client's
 * own text has a plain binder error: an unknown column (42703), as PostgreSQL says. DuckDB binds the
 * client's text to tell (prepared, never run); any other answer leaves the rewritten text's error.
 */
async function clientTextError(ctx: PlanningContext, e: unknown, sql: string, source: string): Promise<never> {
  if (sql === source || !isSqlError(e) || e.sqlstate !== SQLSTATE.ambiguousFunction) throw e;
  let own: DuckDBPreparedStatement | undefined;
  try {
    own = await ctx.conn.prepare(source);
  } catch (x) {
    const error = fromDuckDB(x);
    if (error.sqlstate === SQLSTATE.undefinedColumn) throw error;
  }
  own?.destroySync();
  // the client's own text binds: the ambiguity is the rewrite's, not the client's (`round('x', 2)` stays 42725)
  // (a parameter's own ambiguity, `date_trunc('month', $1)`, is PostgreSQL's 42725 too: kept)
  throw (own && !/\$\d/.test(source) ? internalOverloadRefused(e, sql) : undefined) ?? e;
}

/**
 * DuckDB's binder picks a typed macro's overload by its argument's type, but gives a column of an enclosing query
 * read inside a subquery with its own FROM (and a DuckDB JSON aggregate's value) no one type: every overload of the
 * rewrite's own macros matches, and the client read "Macro ffin() has multiple overloads" (42725), a name it never
 * wrote. Refused as what it is, naming no macro (PostgreSQL answers; the rewrite cannot tell an outer column).
 */
function internalOverloadRefused(e: SqlError, sql: string): SqlError | undefined {
  const name = /^Macro (\w+)\(\) has multiple overloads/.exec(e.message)?.[1];
  if (name === undefined || !sql.includes(`_pgsem_${name}(`)) return undefined;
  return new SqlError(
    SQLSTATE.featureNotSupported,
    "a value whose type DuckDB's binder does not tell (a column of an enclosing query inside a subquery with its own FROM, or a JSON aggregate of DuckDB's) in an expression PostgreSQL types by it is not supported by fdl-gateway",
    undefined,
    'Compute the expression in the query whose FROM has the column and read the result in the subquery: (select y2 from … q) from (select y * 2 as y2 from …) t; for a JSON array use json_agg(x).',
  );
}

/** Whether the client declared a type for each of $1…$max that `sql` names (so none is PostgreSQL's to infer). */
function allDeclared(sql: string, declaredTypes: readonly number[]): boolean {
  let max = 0;
  replaceParams(sql, (n) => ((max = Math.max(max, n)), undefined));
  for (let n = 1; n <= max; n++) if (!declaredTypes[n - 1]) return false;
  return max > 0;
}

/** Whether `sql` has a parameter ($n) outside literals and comments. */
function hasParams(sql: string): boolean {
  let found = false;
  replaceParams(sql, () => ((found = true), undefined));
  return found;
}

/** 1-based indexes of parameters whose type DuckDB could not infer. */
function undeterminedParams(duck: DuckDBPreparedStatement): number[] {
  const out: number[] = [];
  for (let i = 1; i <= duck.parameterCount; i++) {
    try {
      if (duck.parameterTypeId(i) === DuckDBTypeId.INVALID || duck.parameterTypeId(i) === DuckDBTypeId.ANY) out.push(i);
    } catch {
      out.push(i);
    }
  }
  return out;
}

/** The OID to announce for an undeclared parameter; text when DuckDB cannot infer one, as PostgreSQL does for unknown. */
function paramOidFor(duck: DuckDBPreparedStatement, index: number): number {
  try {
    const oid = pgFieldFor(duck.parameterType(index)).oid;
    return oid === 0 ? 25 : oid;
  } catch {
    return 25;
  }
}

function refusal(type: string): SqlError {
  const writes = [
    'INSERT',
    'UPDATE',
    'DELETE',
    'CREATE',
    'ALTER',
    'DROP',
    'COPY',
    'CREATE_FUNC',
    'MERGE_INTO',
    'VACUUM',
    'ANALYZE',
    'COPY_DATABASE',
    'EXPORT',
  ];
  if (writes.includes(type)) {
    return new SqlError(
      SQLSTATE.readOnlyTransaction,
      `cannot execute ${type.replace('_', ' ')} in a read-only transaction`,
    );
  }
  return new SqlError(
    SQLSTATE.insufficientPrivilege,
    `permission denied: ${type.replace('_', ' ')} statements are not allowed by fdl-gateway`,
  );
}
