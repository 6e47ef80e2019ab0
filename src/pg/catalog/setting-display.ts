/**
 * A PostgreSQL setting as SHOW and current_setting print it: a number with a unit in the largest
 * unit it is a whole multiple of (`work_mem` 4096 kB → `4MB`, `shared_buffers` 16384 × 8kB →
 * `128MB`, `autovacuum_naptime` 60 s → `1min`), as guc.c's _ShowOption does; pg_settings keeps the
 * base-unit number.
 */
import { PG_SETTINGS } from './pg-data.js';
import { PRIVILEGED_SETTINGS } from './privileged-settings.js';

/** Units in kB (memory) or ms (time), largest first, as guc.c's conversion tables. */
const MEMORY: ReadonlyArray<readonly [string, number]> = [
  ['TB', 1024 ** 3],
  ['GB', 1024 ** 2],
  ['MB', 1024],
  ['kB', 1],
  ['B', 1 / 1024],
];
const TIME: ReadonlyArray<readonly [string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['min', 60_000],
  ['s', 1000],
  ['ms', 1],
  ['us', 0.001],
];
const BASE: Readonly<Record<string, readonly [ReadonlyArray<readonly [string, number]>, number]>> = {
  B: [MEMORY, 1 / 1024],
  kB: [MEMORY, 1],
  '8kB': [MEMORY, 8],
  MB: [MEMORY, 1024],
  ms: [TIME, 1],
  s: [TIME, 1000],
  min: [TIME, 60_000],
};

export function shownSetting(setting: string, unit: string | null): string {
  const base = unit ? BASE[unit] : undefined;
  const value = Number(setting);
  if (!base || !Number.isFinite(value) || value <= 0 || setting.trim() === '') return setting;
  const [table, factor] = base;
  const amount = value * factor;
  for (const [name, size] of table) {
    const n = amount / size;
    if (Math.abs(n - Math.round(n)) < 1e-9) return `${Math.round(n)}${name}`;
  }
  return setting;
}

/** Settings whose SHOW text differs from pg_settings.setting: name → shown text. */
export const SHOWN_SETTINGS: ReadonlyMap<string, string> = new Map(
  PG_SETTINGS.filter((r) => !PRIVILEGED_SETTINGS.has(String(r[0])))
    .map((r) => [String(r[0]), shownSetting(String(r[1]), r[2] === null ? null : String(r[2]))] as const)
    .filter(([name, shown]) => shown !== String(PG_SETTINGS.find((r) => r[0] === name)![1])),
);
