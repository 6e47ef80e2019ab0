/**
 * A seeded, deterministic fuzzer for the PostgreSQL wire front end of the gateway, shared by
 * `test/fuzz.test.ts` (bounded) and `bench/fuzz.ts` (long run).
 *
 * Each fuzz *case* is one real TCP connection: a prelude (startup packet, maybe mutated, maybe preceded
 * by SSLRequest/GSSENCRequest), then a list of frontend frames (valid, valid-looking with garbage
 * fields, bit-flipped, truncated, with lying lengths, random type bytes, oversize lengths), written in
 * randomly split chunks. How the case ends depends on whether the byte stream is still well framed:
 *
 *  - framed:   we send Sync + Query `ROLLBACK; SELECT 4242` and require either the answer `4242`
 *              followed by ReadyForQuery ("continued"), or an ErrorResponse/close ("error-close"/"closed");
 *  - unframed: (a length field lies, a frame is cut) we half-close our side and require the server to
 *              close within the timeout ("eof-close"), unless it has refused already;
 *  - oversize: a declared length above the gateway's limits must be refused without waiting for the
 *              body: we do NOT half-close and require an ErrorResponse/close within the timeout.
 *
 * Anything else — no answer and no close within `timeoutMs` ("timeout"), a wrong answer
 * ("bad-answer"), or backend bytes that are not valid framing ("server-garbage") — is a finding.
 */
import { connect as netConnect, type Socket } from 'node:net';

/** mulberry32: tiny, fast, deterministic; good enough to drive mutations. */
export class Prng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(a: readonly T[]): T {
    return a[this.int(a.length)]!;
  }
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }
}

// ---------- frame builders ----------
const cstr = (s: string | Buffer) => Buffer.concat([Buffer.isBuffer(s) ? s : Buffer.from(s, 'utf8'), Buffer.from([0])]);
const i16 = (v: number) => {
  const b = Buffer.alloc(2);
  b.writeInt16BE((v << 16) >> 16);
  return b;
};
const i32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v | 0);
  return b;
};
export function msg(type: string | number, body: Buffer): Buffer {
  const h = Buffer.alloc(5);
  h[0] = typeof type === 'number' ? type : type.charCodeAt(0);
  h.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([h, body]);
}
export function startupPacket(params: Record<string, string>, version = 196608): Buffer {
  const body = Buffer.concat([
    i32(version),
    ...Object.entries(params).flatMap(([k, v]) => [cstr(k), cstr(v)]),
    Buffer.from([0]),
  ]);
  return Buffer.concat([i32(body.length + 4), body]);
}
const special = (code: number, extra: Buffer = Buffer.alloc(0)) =>
  Buffer.concat([i32(8 + extra.length), i32(code), extra]);
export const SSL_REQUEST = special(80877103);
export const GSSENC_REQUEST = special(80877104);
export const query = (sql: string | Buffer) => msg('Q', cstr(sql));
export const sync = () => msg('S', Buffer.alloc(0));
export const flush = () => msg('H', Buffer.alloc(0));
export const terminate = () => msg('X', Buffer.alloc(0));
export function parse(name: string, sql: string | Buffer, types: number[] = []): Buffer {
  return msg('P', Buffer.concat([cstr(name), cstr(sql), i16(types.length), ...types.map(i32)]));
}
export function bind(
  portal: string,
  stmt: string,
  formats: number[],
  params: (Buffer | null | { lie: number; data: Buffer })[],
  resultFormats: number[],
): Buffer {
  const parts: Buffer[] = [cstr(portal), cstr(stmt), i16(formats.length), ...formats.map(i16), i16(params.length)];
  for (const p of params) {
    if (p === null) parts.push(i32(-1));
    else if (Buffer.isBuffer(p)) parts.push(i32(p.length), p);
    else parts.push(i32(p.lie), p.data);
  }
  parts.push(i16(resultFormats.length), ...resultFormats.map(i16));
  return msg('B', Buffer.concat(parts));
}
export const describe = (kind: 'S' | 'P' | string, name: string) =>
  msg('D', Buffer.concat([Buffer.from(kind, 'latin1'), cstr(name)]));
export const execute = (portal: string, maxRows: number) => msg('E', Buffer.concat([cstr(portal), i32(maxRows)]));
export const close = (kind: string, name: string) => msg('C', Buffer.concat([Buffer.from(kind, 'latin1'), cstr(name)]));

/** Statements a fuzzed session may run: cheap, read-only, some failing on purpose. */
export const SQL = [
  'select 1',
  'select * from sales.orders limit 5',
  'select count(*) from sales.orders',
  'select * from main.all_types',
  'select $1::int + 1',
  'select $1::text, $2::int8',
  'select $1',
  'select $1::timestamp, $2::numeric, $3::bytea',
  'show fdl.version',
  'show fdl.ref',
  'begin',
  'commit',
  'rollback',
  'savepoint s1',
  'rollback to s1',
  'select * from no_such_table',
  'selec garbage(',
  'select 1/0',
  'select pg_sleep(0.01)',
  "set application_name = 'fuzz'",
  "set fdl.ref = 'tags/v1'",
  "set fdl.ref = 'no/such/ref'",
  'reset fdl.ref',
  'copy (select 1 as a) to stdout',
  'copy sales.orders from stdin',
  'select current_database(), current_user, version()',
  'select * from pg_catalog.pg_type limit 3',
  "select repeat('x', 10000)",
  '',
  ';;',
  'select 1; select 2; selec 3',
];

export type Outcome =
  'continued' | 'error-close' | 'closed' | 'eof-close' | 'timeout' | 'bad-answer' | 'server-garbage' | 'crash';
export const FINDINGS: ReadonlySet<Outcome> = new Set(['timeout', 'bad-answer', 'server-garbage', 'crash']);

export interface FuzzCase {
  id: number;
  /** Chunks in send order (frames may be split or joined across chunks). */
  chunks: Buffer[];
  frames: number;
  /** The stream as sent is still well framed (a Sync/probe can follow). */
  framed: boolean;
  /** A declared length the server must refuse without waiting for the body. */
  oversize: boolean;
  /** Whether the prelude ended with a valid startup packet for a served database. */
  startupValid: boolean;
  /** Number of single-byte answers (SSLRequest/GSSENCRequest) to expect before framed messages. */
  singleByteAnswers: number;
  /** Short description of what was done, for reports. */
  kinds: string[];
}

export interface CaseResult {
  id: number;
  outcome: Outcome;
  frames: number;
  ms: number;
  detail?: string;
  kinds: string[];
}

function garbageParam(r: Prng): Buffer | null | { lie: number; data: Buffer } {
  switch (r.int(9)) {
    case 0:
      return null;
    case 1:
      return Buffer.from(String(r.range(-1e6, 1e6)));
    case 2:
      return r.bytes(r.int(12));
    case 3:
      return Buffer.from('2024-13-45 99:99:99');
    case 4:
      return Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28]); // invalid UTF-8
    case 5:
      return { lie: r.pick([-2, -100, 0x7fffffff, 1 << 20]), data: r.bytes(r.int(4)) };
    case 6:
      return Buffer.from('NaN');
    case 7:
      return Buffer.alloc(r.pick([1, 2, 3, 4, 8, 16]), r.int(256));
    default:
      return Buffer.from(r.pick(['42', 'abc', '1e400', '-0', '\\x00ff', '']));
  }
}

/** One valid-looking extended-protocol or simple-protocol message (garbage in its fields). */
function plausibleFrame(r: Prng, names: string[]): { frame: Buffer; kind: string } {
  const name = () => (r.chance(0.5) ? '' : r.chance(0.8) && names.length ? r.pick(names) : `s${r.int(4)}`);
  switch (r.int(13)) {
    case 0:
    case 1:
      return { frame: query(r.pick(SQL)), kind: 'Q' };
    case 2:
    case 3: {
      const n = name();
      if (n) names.push(n);
      const types = r.chance(0.5)
        ? []
        : Array.from({ length: r.int(4) }, () => r.pick([0, 16, 20, 21, 23, 25, 701, 1043, 1114, 1700, 17, 99999, -1]));
      return { frame: parse(n, r.pick(SQL), types), kind: 'P' };
    }
    case 4:
    case 5: {
      const np = r.int(4);
      const formats = r.chance(0.6)
        ? Array.from({ length: r.pick([0, 1, np, np + 1]) }, () => r.pick([0, 1, 1, 2, -1, 7]))
        : [];
      const params = Array.from({ length: r.chance(0.8) ? np : r.int(6) }, () => garbageParam(r));
      const rf = Array.from({ length: r.pick([0, 0, 1, 2, 5]) }, () => r.pick([0, 1, 1, 3, -5]));
      return { frame: bind(name(), name(), formats, params, rf), kind: 'B' };
    }
    case 6:
      return { frame: describe(r.pick(['S', 'P', 'P', 'X', '\0']), name()), kind: 'D' };
    case 7:
    case 8:
      return { frame: execute(name(), r.pick([0, 0, 1, 2, -1, 0x7fffffff])), kind: 'E' };
    case 9:
      return { frame: close(r.pick(['S', 'P', 'Z']), name()), kind: 'C' };
    case 10:
      return { frame: r.chance(0.7) ? sync() : flush(), kind: 'S/H' };
    case 11: {
      const t = r.pick(['d', 'c', 'f', 'F', 'p']); // CopyData/CopyDone/CopyFail/FunctionCall/Password out of place
      return { frame: msg(t, r.bytes(r.int(20))), kind: `stray-${t}` };
    }
    default:
      return { frame: msg(r.int(256), r.bytes(r.int(40))), kind: 'random-type' };
  }
}

function flipBits(r: Prng, b: Buffer, skipHeader: number): Buffer {
  const c = Buffer.from(b);
  const n = r.range(1, 4);
  for (let i = 0; i < n && c.length > skipHeader; i++) {
    const at = skipHeader + r.int(c.length - skipHeader);
    c[at] = c[at]! ^ (1 << r.int(8));
  }
  return c;
}

/** Build one fuzz case from the PRNG. `database` is a served database name (e.g. 'basic'). */
export function makeCase(r: Prng, id: number, database: string, maxFrames = 12): FuzzCase {
  const chunks: Buffer[] = [];
  const kinds: string[] = [];
  let frames = 0;
  let framed = true;
  let oversize = false;
  let singleByteAnswers = 0;
  const params: Record<string, string> = { user: r.pick(['fuzz', 'postgres', 'a'.repeat(r.int(70))]), database };
  if (r.chance(0.2)) params.application_name = r.pick(['x', '\u00e9t\u00e9', 'a'.repeat(200)]);
  if (r.chance(0.1)) params.options = r.pick(['-c fdl.ref=tags/v1', '-c statement_timeout=5s', '--garbage', '-c']);
  if (r.chance(0.05)) params.replication = 'database';
  if (r.chance(0.1))
    params[r.pick(['_pq_.x', 'client_encoding', 'DateStyle', 'bogus'])] = r.pick(['UTF8', 'LATIN1', 'ISO', '']);
  if (r.chance(0.05)) params.database = r.pick(['nosuch', 'basic@nosuchref', '@', 'basic@../../etc', 'basic@tags/v1']);
  let startupValid = !('replication' in params) && params.database === database;

  // Prelude.
  const pre = r.int(20);
  if (pre === 0) {
    chunks.push(SSL_REQUEST);
    singleByteAnswers++;
    frames++;
    kinds.push('ssl');
  }
  if (pre === 1) {
    chunks.push(GSSENC_REQUEST);
    singleByteAnswers++;
    frames++;
    kinds.push('gssenc');
  }
  const sp = startupPacket(params, r.chance(0.05) ? r.pick([196609, 196610, 131072, 0x00040000, 1234]) : 196608);
  const m = r.int(100);
  if (m < 60) {
    chunks.push(sp);
  } else if (m < 70) {
    chunks.push(flipBits(r, sp, 0));
    kinds.push('startup-bitflip');
    framed = false;
    startupValid = false;
  } else if (m < 76) {
    chunks.push(sp.subarray(0, r.int(sp.length)));
    kinds.push('startup-truncated');
    framed = false;
    startupValid = false;
  } else if (m < 82) {
    const c = Buffer.from(sp);
    c.writeInt32BE(r.pick([0, 1, 4, 7, -1, 10_001, 1 << 20, 0x7fffffff]), 0);
    const len = c.readInt32BE(0);
    chunks.push(c);
    kinds.push(`startup-len=${len}`);
    framed = false;
    startupValid = false;
    if (len < 8 || len > 10_000) oversize = true; // refusable at once, no need to wait for a body
  } else if (m < 86) {
    chunks.push(r.bytes(r.range(1, 64)));
    kinds.push('startup-random');
    framed = false;
    startupValid = false;
  } else if (m < 90) {
    chunks.push(special(80877102, r.bytes(8)));
    kinds.push('cancel-random');
    startupValid = false;
    framed = false;
  } else if (m < 95) {
    // A startup packet whose length is honest but whose body lies (missing terminators etc.)
    const body = Buffer.concat([i32(196608), r.bytes(r.int(60))]);
    chunks.push(Buffer.concat([i32(body.length + 4), body]));
    kinds.push('startup-garbage-body');
    startupValid = false;
    framed = false;
  } else {
    chunks.push(sp, sp);
    kinds.push('startup-twice');
    startupValid = false;
    framed = false;
  }
  frames++;
  if (!startupValid)
    return {
      id,
      chunks: split(r, chunks, singleByteAnswers),
      frames,
      framed,
      oversize,
      startupValid,
      singleByteAnswers,
      kinds,
    };

  // Frontend messages.
  const names: string[] = [];
  const n = r.range(1, maxFrames);
  for (let i = 0; i < n; i++) {
    const { frame, kind } = plausibleFrame(r, names);
    frames++;
    const mut = r.int(100);
    if (mut < 84) {
      chunks.push(frame);
      kinds.push(kind);
      continue;
    }
    if (mut < 90) {
      chunks.push(flipBits(r, frame, 5));
      kinds.push(`${kind}-bitflip`);
      continue;
    } // body only: still framed
    if (mut < 92) {
      chunks.push(flipBits(r, frame, 0));
      kinds.push(`${kind}-bitflip-any`);
      framed = false;
      break;
    }
    if (mut < 94) {
      chunks.push(frame.subarray(0, r.int(frame.length)));
      kinds.push(`${kind}-truncated`);
      framed = false;
      break;
    }
    if (mut < 95) {
      // length says less than the body: the rest of the body is parsed as the next frames
      const c = Buffer.from(frame);
      c.writeInt32BE(Math.max(4, c.readInt32BE(1) - r.range(1, 8)), 1);
      chunks.push(c);
      kinds.push(`${kind}-len-short`);
      framed = false;
      break;
    }
    if (mut < 96) {
      const c = Buffer.from(frame);
      const lie = r.pick([0, 1, 2, 3, -1, -5]);
      c.writeInt32BE(lie, 1);
      chunks.push(c);
      kinds.push(`${kind}-len=${lie}`);
      framed = false;
      oversize = true;
      break;
    }
    if (mut < 98) {
      const c = Buffer.from(frame);
      const lie = r.pick([64 * 1024 * 1024 + 1, 0x40000000, 0x7fffffff]);
      c.writeInt32BE(lie, 1);
      chunks.push(c);
      kinds.push(`${kind}-len=${lie}`);
      framed = false;
      oversize = true;
      break;
    }
    // length says more than is sent, then nothing more: server must wait or refuse; we half-close
    const c = Buffer.from(frame);
    c.writeInt32BE(c.readInt32BE(1) + r.range(1, 1000), 1);
    chunks.push(c);
    kinds.push(`${kind}-len-long`);
    framed = false;
    break;
  }
  if (framed && r.chance(0.05)) {
    chunks.push(terminate());
    frames++;
    kinds.push('X');
    framed = false;
  }
  return {
    id,
    chunks: split(r, chunks, singleByteAnswers),
    frames,
    framed,
    oversize,
    startupValid,
    singleByteAnswers,
    kinds,
  };
}

/** Re-cut the byte stream at random points so the server's framer sees partial headers and bodies. */
function split(r: Prng, chunks: Buffer[], keepFirst: number): Buffer[] {
  if (r.chance(0.6)) return chunks;
  const all = Buffer.concat(chunks.slice(keepFirst));
  const out: Buffer[] = chunks.slice(0, keepFirst);
  let p = 0;
  while (p < all.length) {
    const n = r.range(1, Math.max(1, Math.min(all.length - p, r.pick([1, 3, 7, 64, 4096]))));
    out.push(all.subarray(p, p + n));
    p += n;
  }
  return out;
}

export const PROBE_SQL = 'ROLLBACK; SELECT 4242';

function errorText(body: Buffer): string {
  const out: string[] = [];
  let p = 0;
  while (p < body.length && body[p] !== 0) {
    const f = String.fromCharCode(body[p]!);
    const end = body.indexOf(0, p + 1);
    if (end < 0) break;
    if (f === 'C' || f === 'M') out.push(body.subarray(p + 1, end).toString());
    p = end + 1;
  }
  return out.join(' ');
}

/** Run one case over a real socket. */
export async function runCase(host: string, port: number, c: FuzzCase, timeoutMs: number): Promise<CaseResult> {
  const t0 = performance.now();
  const sock: Socket = netConnect(port, host);
  sock.setNoDelay(true);
  return await new Promise<CaseResult>((resolve) => {
    let done = false;
    let buf: Buffer = Buffer.alloc(0);
    let singles = c.singleByteAnswers;
    let lastError = '';
    let probeSent = false;
    let sawAnswer = false;
    let errorAfterProbe = '';
    let settle: NodeJS.Timeout | undefined;
    const finish = (outcome: Outcome, detail?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(settle);
      sock.destroy();
      resolve({
        id: c.id,
        outcome,
        frames: c.frames,
        ms: performance.now() - t0,
        detail: detail ?? (lastError || undefined),
        kinds: c.kinds,
      });
    };
    const timer = setTimeout(
      () =>
        finish(
          'timeout',
          `no answer/close within ${timeoutMs} ms (probe ${probeSent ? 'sent' : 'not sent'}; last error ${lastError || 'none'})`,
        ),
      timeoutMs,
    );
    sock.on('error', () => {
      /* EPIPE/ECONNRESET after a server close: the 'close' event decides */
    });
    sock.on('close', () => {
      if (done) return;
      if (lastError) finish('error-close');
      else if (!c.framed && !c.oversize) finish('eof-close');
      else finish('closed');
    });
    sock.on('data', (d: Buffer) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      clearTimeout(settle);
      for (;;) {
        if (singles > 0 && buf.length >= 1 && (buf[0] === 0x4e || buf[0] === 0x53 || buf[0] === 0x47)) {
          // single-byte answer to SSLRequest/GSSENCRequest; no TLS is configured, so only 'N' is right
          if (buf[0] !== 0x4e)
            return finish(
              'server-garbage',
              `server answered ${String.fromCharCode(buf[0]!)} to an encryption request without TLS configured`,
            );
          singles--;
          buf = buf.subarray(1);
          continue;
        }
        if (buf.length < 5) break;
        const len = buf.readInt32BE(1);
        if (len < 4 || len > 64 * 1024 * 1024)
          return finish('server-garbage', `backend frame type ${buf[0]} length ${len}`);
        if (buf.length < 1 + len) break;
        const type = String.fromCharCode(buf[0]!);
        const body = buf.subarray(5, 1 + len);
        buf = buf.subarray(1 + len);
        singles = 0;
        if (type === 'E') {
          lastError = errorText(body);
          if (probeSent) errorAfterProbe = lastError;
        }
        if (!probeSent) continue;
        // Nothing in the fuzzed SQL can produce 4242: its DataRow is the probe's answer.
        if (type === 'D' && body.length === 10 && body.subarray(6).toString() === '4242') sawAnswer = true;
        if (type === 'Z' && sawAnswer) return finish('continued');
      }
      if (probeSent && !sawAnswer && errorAfterProbe) {
        // The probe may legitimately fail (the fuzzed session moved to a missing ref, say); once the
        // server has fallen silent after an error, the connection answered; report it as an error.
        settle = setTimeout(() => finish('error-close', `probe refused: ${errorAfterProbe}`), 500);
      }
    });
    sock.once('connect', async () => {
      for (const [i, ch] of c.chunks.entries()) {
        if (done || sock.destroyed) return;
        sock.write(ch);
        if (i < c.singleByteAnswers) {
          // like a real client: wait for the one-byte answer before going on (pipelining after an
          // SSLRequest is refused, as PostgreSQL does since CVE-2021-23214)
          const t = performance.now();
          while (singles > c.singleByteAnswers - 1 - i && !done && performance.now() - t < timeoutMs / 2)
            await new Promise((r) => setTimeout(r, 2));
        }
        if (ch.length < 8 && c.chunks.length > 20) await new Promise((r) => setImmediate(r));
      }
      if (done || sock.destroyed) return;
      if (c.framed && c.startupValid) {
        // Sync ends any extended-protocol error state; the probe must then answer 4242.
        probeSent = true;
        sock.write(Buffer.concat([sync(), query(PROBE_SQL)]));
      } else if (!c.oversize) {
        sock.end();
      }
    });
  });
}

export interface FuzzSummary {
  seed: number;
  cases: number;
  frames: number;
  ms: number;
  outcomes: Record<string, number>;
  findings: CaseResult[];
  maxCaseMs: number;
}

/**
 * Run cases with `concurrency` connections in flight until `maxFrames` frames or `maxMs` elapsed.
 * `alive()` is checked after every case; a dead server stops the run (reported as a finding).
 */
export async function fuzz(opts: {
  host: string;
  port: number;
  database: string;
  seed: number;
  maxFrames: number;
  maxMs: number;
  concurrency?: number;
  timeoutMs?: number;
  alive: () => boolean;
  onProgress?: (s: FuzzSummary) => void;
}): Promise<FuzzSummary> {
  const r = new Prng(opts.seed);
  const t0 = performance.now();
  const summary: FuzzSummary = {
    seed: opts.seed,
    cases: 0,
    frames: 0,
    ms: 0,
    outcomes: {},
    findings: [],
    maxCaseMs: 0,
  };
  let nextId = 0;
  let stop = false;
  // Cases are generated in order from one PRNG, so a seed reproduces the same sequence of cases.
  const take = (): FuzzCase | null => {
    if (stop || summary.frames >= opts.maxFrames || performance.now() - t0 > opts.maxMs) return null;
    const c = makeCase(r, nextId++, opts.database);
    summary.frames += c.frames;
    return c;
  };
  let lastReport = t0;
  const worker = async () => {
    for (let c = take(); c; c = take()) {
      const res = await runCase(opts.host, opts.port, c, opts.timeoutMs ?? 10_000);
      summary.cases++;
      summary.outcomes[res.outcome] = (summary.outcomes[res.outcome] ?? 0) + 1;
      summary.maxCaseMs = Math.max(summary.maxCaseMs, res.ms);
      if (FINDINGS.has(res.outcome)) summary.findings.push(res);
      if (!opts.alive()) {
        summary.findings.push({ ...res, outcome: 'crash', detail: `gateway process died after case ${res.id}` });
        stop = true;
      }
      if (opts.onProgress && performance.now() - lastReport > 5000) {
        lastReport = performance.now();
        summary.ms = lastReport - t0;
        opts.onProgress(summary);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 8 }, worker));
  summary.ms = performance.now() - t0;
  return summary;
}

/** Re-create case `id` of a seed (for reproducing a finding). */
export function caseOf(seed: number, id: number, database: string): FuzzCase {
  const r = new Prng(seed);
  let c: FuzzCase | undefined;
  for (let i = 0; i <= id; i++) c = makeCase(r, i, database);
  return c!;
}
