/**
 * The process memory ceiling: memoryLimit + 2 GiB, held by the kernel (the last line: the value
 * guards and the memory watchdog keep ordinary and hostile statements within memoryLimit + 1 GiB). DuckDB's memory_limit only
 * counts its buffer pool; the vectors an expression fills are outside it, and a chunk of 2,048 rows
 * is computed in one uninterruptible step (200 rows of repeat('x', 50000000): 10 GB before the
 * first row reaches the client), as is a constant folded while a statement is prepared
 * (len(range(300000000))). No check in the gateway can stop those in time, so the process's data
 * segment is capped instead (RLIMIT_DATA, through util-linux's prlimit: Node has no setrlimit). An
 * allocation past it fails; DuckDB answers the statement with its Out of Memory error (53200) and
 * frees what it built, and the process serves on.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseByteSize } from './temp-ceiling.js';

/**
 * DuckDB's buffer between a streaming result's producer and its fetches, set on every session
 * connection. DuckDB's default (976.5 KiB) is counted as each chunk's fixed-width part only (16 bytes
 * per string, whatever its length: DataChunk::GetDataSize), so for wide strings it admitted ~20 chunks
 * of 2,048 rows: 140 KB rows buffered 6 GB before the first fetch returned, outside memory_limit.
 * 16 KB is about one chunk of string rows (2,048 × 16 bytes counted): DuckDB buffers one chunk ahead
 * of the fetch (its worker threads each hold the chunk they are computing), and the gateway's own
 * prefetch (wire/result-stream.ts) decides how far ahead to go. Not less: an order-preserving result
 * (BatchedBufferedData) gives 60% of it to the read queue and 40% to later batches, and at 1 byte
 * either share is 0 and the query never produces a row.
 */
export const STREAMING_BUFFER_SIZE = '16KB';

/** What the process may hold above DuckDB's memory_limit: JavaScript, buffers, untracked vectors. */
export const HEADROOM_BYTES = 2 * 1024 ** 3;
/**
 * RSS also counts file-backed pages (Node's and DuckDB's code, ~80 MiB) that the data limit does
 * not: they come off the limit so RSS stays under memoryLimit + HEADROOM_BYTES.
 */
export const FILE_PAGES_BYTES = 128 * 1024 ** 2;

/** The data segment limit for a DuckDB memory_limit (DuckDB's units). */
export function dataLimitFor(memoryLimit: string): number {
  return parseByteSize(memoryLimit) + HEADROOM_BYTES - FILE_PAGES_BYTES;
}

/**
 * DuckDB's allocator (jemalloc) keeps the address space it once mapped for reuse by the same arena
 * (`retain`). Under a data limit that is fatal: after a statement that failed at the ceiling, the
 * freed space stayed counted (VmData 1.8 GB at RSS 140 MB) and the next allocations elsewhere (a
 * session's 50 MB row in Node) failed. Without it the space is unmapped once decayed (VmData back to
 * 440 MB). jemalloc reads it when the binding is loaded: cli/allocator-env.ts sets it first thing.
 */
export function allocatorReturnsAddressSpace(env: NodeJS.ProcessEnv = process.env): void {
  const conf = env.DUCKDB_JE_MALLOC_CONF ?? '';
  if (/(^|,)retain:/.test(conf)) return; // the operator decided
  env.DUCKDB_JE_MALLOC_CONF = conf ? `${conf},retain:false` : 'retain:false';
}

/** Bytes this process may still map under its data limit (Infinity when unlimited). */
export function dataHeadroom(): number {
  const limit = currentDataLimit();
  if (limit === Infinity) return Infinity;
  const m = /^VmData:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? limit - Number(m[1]) * 1024 : Infinity;
}

/** This process's current soft data limit in bytes (Infinity when unlimited). */
export function currentDataLimit(): number {
  const m = /^Max data size\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  return !m || m[1] === 'unlimited' ? Infinity : Number(m[1]);
}

/**
 * Cap this process's data segment at `bytes` (soft and hard: it cannot be raised again, a reload
 * included). A lower limit already set by the operator is kept. Returns the limit in force, or
 * throws when it cannot be set (no prlimit, or a kernel without RLIMIT_DATA on mmap).
 */
export function applyDataLimit(bytes: number): number {
  const current = currentDataLimit();
  if (current <= bytes) return current;
  execFileSync('prlimit', ['--pid', String(process.pid), `--data=${bytes}:${bytes}`], { stdio: 'ignore' });
  const now = currentDataLimit();
  if (now > bytes) throw new Error(`the data limit is still ${now} after prlimit`);
  return now;
}
