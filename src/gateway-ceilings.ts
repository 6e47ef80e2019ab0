/**
 * The process's own ceilings, set up at start: the data segment capped by the kernel, the watchdog
 * over DuckDB's temp directory and the one over resident memory. Each stops work through the wire
 * server and logs at most every 10 seconds.
 */
import type { Logger } from 'pino';
import { SqlError, SQLSTATE } from './errors.js';
import { applyDataLimit, dataLimitFor } from './engine/memory-ceiling.js';
import { MemoryWatchdog, WATCH_MARGIN_BYTES } from './engine/memory-watchdog.js';
import { TempCeiling, parseByteSize } from './engine/temp-ceiling.js';
import type { WireServer } from './wire/server.js';

/** memoryLimit + 2 GiB for the whole process, held by the kernel (engine/memory-ceiling.ts). */
export function limitDataSegment(memoryLimit: string, log: Logger): void {
  const wanted = dataLimitFor(memoryLimit);
  try {
    const limit = applyDataLimit(wanted);
    log.info(
      { event: 'memory-ceiling', dataLimitBytes: limit },
      `process data segment limited to ${limit} bytes (memoryLimit + 2 GiB)`,
    );
  } catch (e) {
    log.warn(
      { event: 'memory-ceiling', err: (e as Error).message },
      'could not limit the process data segment (prlimit): memory beyond memoryLimit is not bounded',
    );
  }
}

/** DuckDB's own temp limit misses a window's sort: the watchdog stops what spills past it. */
export function watchTempCeiling(limit: string, dir: string, server: WireServer, log: Logger): TempCeiling {
  let warned = 0;
  return new TempCeiling({
    dir,
    limit,
    onExceeded: (used) => {
      server.stopForTempCeiling(limit, 100);
      if (Date.now() - warned > 10_000) {
        warned = Date.now();
        log.warn(
          { event: 'temp-ceiling', usedBytes: used, limit },
          `DuckDB temp files hold ${used} bytes, over max_temp_directory_size ${limit}: suspended results ended, then running statements stopped`,
        );
      }
    },
    onWithin: () => server.tempCeilingHeld(),
  }).start();
}

/**
 * Between vectors, what DuckDB's memory_limit does not count is stopped at memoryLimit + 768 MiB: the
 * statement holding the most by the gateway's accounting first, else the statements of the user whose statement has
 * run longest (never every user's).
 */
export function watchMemory(
  memoryLimit: string,
  server: WireServer,
  log: Logger,
  userStopped?: (user: string) => void,
): MemoryWatchdog {
  const line = testWatchLine() ?? parseByteSize(memoryLimit) + WATCH_MARGIN_BYTES;
  const mib = (b: number) => Math.round(b / 1024 ** 2);
  const over = `over memoryLimit (${memoryLimit}) + ${mib(WATCH_MARGIN_BYTES)} MiB`;
  let warned = 0;
  return new MemoryWatchdog({
    lineBytes: line,
    holders: () => server.memoryHolders(),
    holderError: (rss, held) =>
      new SqlError(
        SQLSTATE.outOfMemory,
        `out of memory: the gateway holds ${mib(rss)} MiB, ${over}, and this statement's result holds about ${mib(held)} MiB of it (rows produced and not yet taken by the client): statement stopped`,
        undefined,
        'Read the result as it arrives, or select fewer or smaller values.',
      ),
    suspectError: (rss, runningMs) =>
      new SqlError(
        SQLSTATE.outOfMemory,
        `out of memory: the gateway holds ${mib(rss)} MiB, ${over}, no statement's result accounts for it, and this user's statements had run longest (this one ${(runningMs / 1000).toFixed(1)} s): statement stopped`,
        undefined,
        OUT_OF_MEMORY_SUSPECT_HINT,
      ),
    onStopped: (rss, stopped, held, user) => {
      if (user !== undefined) userStopped?.(user);
      if (Date.now() - warned < 10_000) return;
      warned = Date.now();
      log.warn(
        { event: 'memory-watchdog', rssBytes: rss, lineBytes: line, stopped, heldBytes: held, user },
        stopped === 'holder'
          ? `resident memory ${rss} bytes, ${over}: the statement holding the most (${held} bytes) stopped`
          : `resident memory ${rss} bytes, ${over}: the statements of ${user}, whose statement had run longest, stopped`,
      );
    },
  }).start();
}

/** The longest-running user's statements stopped: the likeliest builders of what no result accounts for. */
const OUT_OF_MEMORY_SUSPECT_HINT =
  'A statement that builds very large values (string_agg over many rows, large lists or texts) can cause this: build smaller values, or aggregate in parts.';

/**
 * The test suite's line (FDL_TEST_MEMORY_WATCH_LINE, bytes): a real gateway's watchdog reached by a
 * statement DuckDB's memory_limit would stop first (test/value-ceiling.test.ts). Never in a served gateway.
 */
function testWatchLine(): number | undefined {
  const line = process.env.FDL_TEST_MEMORY_WATCH_LINE;
  if (!line) return undefined;
  if (process.env.FDL_TEST_ADMISSION_I_AM_A_TEST !== 'yes')
    throw new Error('FDL_TEST_MEMORY_WATCH_LINE is for the test suite only');
  return Number(line);
}
