/**
 * The process's own ceilings, set up at start: the data segment capped by the kernel, the watchdog
 * over DuckDB's temp directory and the one over resident memory. Each stops work through the wire
 * server and logs at most every 10 seconds.
 */
import type { Logger } from 'pino';
import { SqlError, SQLSTATE } from './errors.js';
import { OUT_OF_MEMORY_HINT } from './engine/duckdb-errors.js';
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

/** Between vectors, what DuckDB's memory_limit does not count is stopped at memoryLimit + 768 MiB. */
export function watchMemory(memoryLimit: string, server: WireServer, log: Logger): MemoryWatchdog {
  const line = parseByteSize(memoryLimit) + WATCH_MARGIN_BYTES;
  let warned = 0;
  return new MemoryWatchdog({
    lineBytes: line,
    onExceeded: (rss) => {
      const mib = (b: number) => Math.round(b / 1024 ** 2);
      server.stopForMemoryCeiling(
        new SqlError(
          SQLSTATE.outOfMemory,
          `out of memory: the gateway holds ${mib(rss)} MiB, over memoryLimit (${memoryLimit}) + ${mib(WATCH_MARGIN_BYTES)} MiB: statement stopped`,
          undefined,
          OUT_OF_MEMORY_HINT,
        ),
      );
      if (Date.now() - warned > 10_000) {
        warned = Date.now();
        log.warn(
          { event: 'memory-watchdog', rssBytes: rss, lineBytes: line },
          `resident memory ${rss} bytes, over memoryLimit + ${mib(WATCH_MARGIN_BYTES)} MiB: running statements stopped`,
        );
      }
    },
  }).start();
}
