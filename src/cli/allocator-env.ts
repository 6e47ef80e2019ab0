/**
 * Imported first by the command line, next to threadpool.ts: DuckDB's allocator (jemalloc) reads
 * its options when the binding is loaded, before any of the gateway's code runs. `fdl serve` runs
 * under the memory ceiling (engine/memory-ceiling.ts), which needs freed address space given back.
 */
import { allocatorReturnsAddressSpace } from '../engine/memory-ceiling.js';

if (process.argv[2] === 'serve') allocatorReturnsAddressSpace();
