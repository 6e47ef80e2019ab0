/**
 * Flags and the optional JSON config file become one validated configuration. A flag given on the
 * command line wins over the file, the file over the built-in default (no flag has a commander
 * default, or it would hide the file's value); the file can hold everything a flag can, and users.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { GatewayConfig, RepoConfig } from '../gateway.js';
import { DEFAULT_MAX_PREPARED_PER_USER, DEFAULT_MAX_PREPARED_TEXT } from '../session/named-limits.js';
import { DEFAULT_MAX_PREPARED_HANDLES } from '../session/handle-budget.js';
import { ENGINE_CALL_SLOTS, STUCK_CALL_GRACE_MS, USER_ENGINE_CALLS } from '../engine/engine-calls.js';
import { NATIVE_VERSION_MAX_BYTES } from '../versions/native-tables.js';

const Policy = z.enum(['require', 'prefer', 'off']);

const RepoEntry = z.union([
  z.string().min(1),
  z.object({
    location: z.string().min(1),
    signatures: Policy.optional(),
    allowedSigners: z.string().optional(),
    dataHashes: z.enum(['require', 'prefer']).optional(),
  }),
]);

const User = z
  .object({
    /** SCRAM-SHA-256 verifier (or md5 hash) as produced by `fdl hash-password`; never a plaintext password. */
    grants: z.record(z.string(), z.array(z.string().min(1))).optional(),
    password: z
      .string()
      .regex(
        /^(SCRAM-SHA-256\$\d+:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+|md5[0-9a-f]{32})$/,
        'must be a SCRAM-SHA-256 verifier or md5 hash (see fdl hash-password)',
      )
      .optional(),
  })
  .strict();

export const ConfigFile = z
  .object({
    auth: z.enum(['trust', 'password', 'md5', 'scram-sha-256']).optional(),
    users: z.record(z.string(), User).optional(),
    repos: z.record(z.string(), RepoEntry).optional(),
    listen: z.string().optional(),
    cacheDir: z.string().optional(),
    stateDir: z.string().optional(),
    cacheMaxBytes: z.number().int().positive().optional(),
    downloadConcurrency: z.number().int().min(1).max(64).optional(),
    resultCacheBytes: z.number().int().nonnegative().optional(),
    s3: z
      .object({
        endpoint: z.string().optional(),
        region: z.string().optional(),
        forcePathStyle: z.boolean().optional(),
      })
      .strict()
      .optional(),
    maxConnections: z.number().int().positive().optional(),
    maxConnectionsPerUser: z.number().int().positive().optional(),
    maxAuthenticating: z.number().int().positive().optional(),
    maxAuthenticatingPerAddress: z.number().int().positive().optional(),
    maxMessageBytes: z.number().int().positive().optional(),
    maxPendingMessageBytes: z.number().int().positive().optional(),
    startupTimeoutMs: z.number().int().positive().optional(),
    sessionOpenTimeoutMs: z.number().int().positive().optional(),
    refTtlMs: z.number().int().nonnegative().optional(),
    maxIdleVersions: z.number().int().positive().optional(),
    maxIdleVersionBytes: z.number().int().positive().optional(),
    nativeTableBytes: z.number().int().nonnegative().optional(),
    memoryLimit: z.string().optional(),
    maxTempDirectorySize: z.string().optional(),
    statementTimeoutMs: z.number().int().nonnegative().optional(),
    idleInTransactionTimeoutMs: z.number().int().nonnegative().optional(),
    maxResultRows: z.number().int().nonnegative().optional(),
    maxResultBytes: z.number().int().nonnegative().optional(),
    maxPreparedStatements: z.number().int().positive().optional(),
    maxPortals: z.number().int().positive().optional(),
    /** Named prepared statements one user's sessions may hold together. */
    maxPreparedStatementsPerUser: z.number().int().positive().optional(),
    /** Characters of text one user's named prepared statements may hold together, across their sessions. */
    maxPreparedText: z.number().int().positive().optional(),
    /** Live DuckDB prepared statements one user's sessions may hold; past it the least recently used are prepared again at their next run. */
    maxPreparedHandles: z.number().int().positive().optional(),
    /** DuckDB calls one user's sessions may run at once, of the process' 6 (engine/engine-calls.ts). */
    maxEngineCallsPerUser: z.number().int().min(1).max(ENGINE_CALL_SLOTS).optional(),
    /** How long a DuckDB call may run on after its statement was stopped before the process counts as wedged. */
    stuckCallGraceMs: z.number().int().positive().optional(),
    threads: z.number().int().positive().optional(),
    tls: z
      .object({ cert: z.string(), key: z.string(), mode: z.enum(['required', 'optional']).optional() })
      .strict()
      .optional(),
    /** HOST:PORT of the HTTP listener (health, readiness, metrics, status page); absent: none. */
    http: z.string().optional(),
    drainTimeoutMs: z.number().int().nonnegative().optional(),
    proxyProtocol: z.boolean().optional(),
    logLevel: z.string().optional(),
    /** PEM CA bundle trusted (with the bundled roots) for https:// repositories and S3 endpoints. */
    caFile: z.string().optional(),
  })
  .strict();

export interface ServeFlags {
  repo?: string[];
  listen?: string;
  cacheDir?: string;
  stateDir?: string;
  config?: string;
  signatures?: string[];
  dataHashes?: string[];
  allowedSigners?: string[];
  maxConnections?: string;
  refTtl?: string;
  memoryLimit?: string;
  threads?: string;
  statementTimeout?: string;
  cacheMaxBytes?: string;
  downloadConcurrency?: string;
  resultCacheBytes?: string;
  s3Endpoint?: string;
  s3Region?: string;
  s3ForcePathStyle?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  tls?: string;
  http?: string;
  drainTimeout?: string;
  proxyProtocol?: boolean;
  logLevel?: string;
  caFile?: string;
  /** false with --no-restart-on-crash: the serving process runs alone (service/supervisor.ts). */
  restartOnCrash?: boolean;
}

/** What `fdl serve` runs: the gateway's configuration and the service around it. */
export interface ServiceConfig {
  gateway: GatewayConfig;
  http: { host: string; port: number } | null;
  drainTimeoutMs: number;
  logLevel: string;
  /** The CA bundle to trust for https:// and S3 endpoints (flag, file, then FDL_CA_FILE). */
  caFile?: string;
}

export class ConfigError extends Error {}

const REPO_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** Split `NAME=VALUE`, checking the name. */
function pair(flag: string, s: string): [string, string] {
  const eq = s.indexOf('=');
  if (eq <= 0 || eq === s.length - 1) throw new ConfigError(`${flag} expects NAME=VALUE, got "${s}"`);
  const name = s.slice(0, eq);
  if (!REPO_NAME.test(name) || name.includes('@')) {
    throw new ConfigError(`${flag}: invalid repository name "${name}" (letters, digits, _ . -; no @)`);
  }
  return [name, s.slice(eq + 1)];
}

export function parseListen(s: string, flag = '--listen'): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(s);
  if (!m) throw new ConfigError(`${flag} expects HOST:PORT, got "${s}"`);
  const port = Number(m[2]);
  if (port > 65535) throw new ConfigError(`${flag}: port ${port} out of range`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

function int(flag: string, s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const n = Number(s);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${flag} expects a whole number, got "${s}"`);
  return n;
}

export function buildServiceConfig(flags: ServeFlags): ServiceConfig {
  const { config, file } = build(flags);
  const http = flags.http ?? file.http;
  return {
    gateway: config,
    http: http ? parseListen(http, '--http') : null,
    drainTimeoutMs: int('--drain-timeout', flags.drainTimeout) ?? file.drainTimeoutMs ?? 30_000,
    logLevel: flags.logLevel ?? file.logLevel ?? 'info',
    caFile: flags.caFile ?? file.caFile ?? (process.env.FDL_CA_FILE || undefined),
  };
}

export function buildConfig(flags: ServeFlags): GatewayConfig {
  return build(flags).config;
}

function build(flags: ServeFlags): { config: GatewayConfig; file: z.infer<typeof ConfigFile> } {
  let file: z.infer<typeof ConfigFile> = {};
  if (flags.config) {
    let text: string;
    try {
      text = readFileSync(flags.config, 'utf8');
    } catch (e) {
      throw new ConfigError(`cannot read config file ${flags.config}: ${(e as Error).message}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new ConfigError(`config file ${flags.config} is not valid JSON: ${(e as Error).message}`);
    }
    const parsed = ConfigFile.safeParse(json);
    if (!parsed.success) {
      throw new ConfigError(
        `config file ${flags.config}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
      );
    }
    file = parsed.data;
  }

  const repos = new Map<string, RepoConfig>();
  for (const [name, entry] of Object.entries(file.repos ?? {})) {
    repos.set(name, typeof entry === 'string' ? { name, location: entry } : { name, ...entry });
  }
  for (const r of flags.repo ?? []) {
    const [name, location] = pair('--repo', r);
    repos.set(name, { ...repos.get(name), name, location });
  }
  for (const s of flags.signatures ?? []) {
    const [name, policy] = pair('--signatures', s);
    const r = repos.get(name);
    if (!r) throw new ConfigError(`--signatures names unknown repository "${name}"`);
    const p = Policy.safeParse(policy);
    if (!p.success) throw new ConfigError(`--signatures ${name}: expected require, prefer or off, got "${policy}"`);
    r.signatures = p.data;
  }
  for (const s of flags.dataHashes ?? []) {
    const [name, policy] = pair('--data-hashes', s);
    const r = repos.get(name);
    if (!r) throw new ConfigError(`--data-hashes names unknown repository "${name}"`);
    if (policy !== 'require' && policy !== 'prefer')
      throw new ConfigError(`--data-hashes ${name}: expected require or prefer, got "${policy}"`);
    r.dataHashes = policy;
  }
  for (const s of flags.allowedSigners ?? []) {
    const [name, path] = pair('--allowed-signers', s);
    const r = repos.get(name);
    if (!r) throw new ConfigError(`--allowed-signers names unknown repository "${name}"`);
    r.allowedSigners = path;
  }
  if (repos.size === 0) throw new ConfigError('no repository to serve: give at least one --repo NAME=LOCATION');
  for (const r of repos.values()) {
    // trusted keys configured: an unsigned version is what a store writer without a key can make, so refuse it unless told otherwise
    if (r.allowedSigners && r.signatures === undefined) r.signatures = 'require';
    if (r.signatures === 'require' && !r.allowedSigners) {
      throw new ConfigError(`repository ${r.name}: --signatures require needs --allowed-signers ${r.name}=FILE`);
    }
  }

  const users = file.users ?? {};
  const auth = file.auth ?? (Object.keys(users).length > 0 ? 'scram-sha-256' : 'trust');
  let tls: GatewayConfig['tls'];
  const cert = flags.tlsCert ?? file.tls?.cert;
  const key = flags.tlsKey ?? file.tls?.key;
  const mode = flags.tls ?? file.tls?.mode ?? 'optional';
  if (mode !== 'required' && mode !== 'optional')
    throw new ConfigError(`--tls expects required or optional, got "${mode}"`);
  if (cert || key) {
    if (!cert || !key) throw new ConfigError('TLS needs both --tls-cert and --tls-key');
    tls = { cert, key, mode };
  } else if (flags.tls === 'required') {
    throw new ConfigError('--tls required needs --tls-cert and --tls-key');
  }
  const listen = parseListen(flags.listen ?? file.listen ?? '127.0.0.1:5433');
  const cacheDir = resolve(flags.cacheDir ?? file.cacheDir ?? join(tmpdir(), 'fdl-gateway-cache'));
  // Ledgers are trust decisions: they must survive a wiped cache and never be reachable through it.
  const stateDir = resolve(flags.stateDir ?? file.stateDir ?? `${cacheDir}.state`);
  const inside = (dir: string, parent: string) => {
    const rel = relative(parent, dir);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  };
  if (inside(stateDir, cacheDir)) {
    throw new ConfigError(
      `--state-dir ${stateDir} is inside the cache directory ${cacheDir}; give a directory outside it (default: <cache-dir>.state)`,
    );
  }
  // Sessions may read the served local folders (DuckDB's allowed directories): the ledgers may not live there.
  for (const r of repos.values()) {
    const local = /^[a-z][a-z0-9+.-]*:/i.test(r.location)
      ? r.location.startsWith('file://')
        ? fileURLToPath(r.location)
        : null
      : resolve(r.location);
    if (local && inside(stateDir, local))
      throw new ConfigError(
        `--state-dir ${stateDir} is inside repository ${r.name} (${local}); give a directory outside it`,
      );
  }
  const config: GatewayConfig = {
    repos: [...repos.values()],
    auth,
    users,
    host: listen.host,
    port: listen.port,
    cacheDir,
    stateDir,
    maxConnections: int('--max-connections', flags.maxConnections) ?? file.maxConnections ?? 100,
    maxConnectionsPerUser: file.maxConnectionsPerUser,
    maxEngineCallsPerUser: file.maxEngineCallsPerUser ?? USER_ENGINE_CALLS,
    stuckCallGraceMs: file.stuckCallGraceMs ?? STUCK_CALL_GRACE_MS,
    maxAuthenticating: file.maxAuthenticating ?? 32,
    maxAuthenticatingPerAddress: file.maxAuthenticatingPerAddress,
    maxMessageBytes: file.maxMessageBytes ?? 64 * 1024 * 1024,
    maxPendingMessageBytes: file.maxPendingMessageBytes,
    startupTimeoutMs: file.startupTimeoutMs ?? 10_000,
    sessionOpenTimeoutMs: file.sessionOpenTimeoutMs ?? 30_000,
    refTtlMs: int('--ref-ttl', flags.refTtl) ?? file.refTtlMs ?? 2000,
    maxIdleVersions: file.maxIdleVersions ?? 16,
    maxIdleVersionBytes: file.maxIdleVersionBytes ?? 256 * 1024 ** 2,
    nativeTableBytes: file.nativeTableBytes ?? NATIVE_VERSION_MAX_BYTES,
    memoryLimit: flags.memoryLimit ?? file.memoryLimit,
    threads: int('--threads', flags.threads) ?? file.threads,
    maxTempDirectorySize: file.maxTempDirectorySize ?? '10GB',
    cacheMaxBytes: int('--cache-max-bytes', flags.cacheMaxBytes) ?? file.cacheMaxBytes ?? 10 * 1024 ** 3,
    downloadConcurrency: Math.min(
      64,
      int('--download-concurrency', flags.downloadConcurrency) ?? file.downloadConcurrency ?? 8,
    ),
    resultCacheBytes: int('--result-cache-bytes', flags.resultCacheBytes) ?? file.resultCacheBytes ?? 64 * 1024 ** 2,
    // Flags, then the config file, then the standard AWS variables (read by the S3 store itself).
    s3: {
      endpoint: flags.s3Endpoint ?? file.s3?.endpoint,
      region: flags.s3Region ?? file.s3?.region,
      forcePathStyle: flags.s3ForcePathStyle ?? file.s3?.forcePathStyle,
    },
    limits: {
      statementTimeoutMs: int('--statement-timeout', flags.statementTimeout) ?? file.statementTimeoutMs ?? 0,
      idleInTransactionTimeoutMs: file.idleInTransactionTimeoutMs ?? 600_000,
      maxResultRows: file.maxResultRows ?? 0,
      maxResultBytes: file.maxResultBytes ?? 0,
      maxPreparedStatements: file.maxPreparedStatements ?? 1000,
      maxPortals: file.maxPortals ?? 1000,
      maxPreparedStatementsPerUser: file.maxPreparedStatementsPerUser ?? DEFAULT_MAX_PREPARED_PER_USER,
      maxPreparedText: file.maxPreparedText ?? DEFAULT_MAX_PREPARED_TEXT,
      maxPreparedHandles: file.maxPreparedHandles ?? DEFAULT_MAX_PREPARED_HANDLES,
    },
    tls,
    proxyProtocol: flags.proxyProtocol ?? file.proxyProtocol ?? false,
  };
  return { config, file };
}
