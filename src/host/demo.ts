/**
 * fdl demo: a small signed repository from the CSV files in examples/demo-data — v1 (customers,
 * orders), v2 (more orders), tags v1 and v2, branch dev at v1. Signed with the DEMO key shipped
 * there (not a secret: anyone can sign as the demo signer).
 */
import { existsSync } from 'node:fs';
import { chmod, copyFile, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importData } from './import.js';
import { initRepository } from './repo.js';
import { branchCommand, tagCommand } from './refs-cmd.js';
import { publicKeyLine } from './sign.js';
import { makeWorkFolder } from './work-folder.js';

/** examples/demo-data from dist/src/host or src/host. */
export function demoDataDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const found = [resolve(here, '../../examples/demo-data'), resolve(here, '../../../examples/demo-data')].find((p) =>
    existsSync(join(p, 'orders.csv')),
  );
  if (!found) throw new Error('examples/demo-data not found next to the program');
  return found;
}

export async function buildDemo(dir: string, progress?: (l: string) => void): Promise<{ v1: string; v2: string }> {
  if (existsSync(join(dir, 'fdl.json')))
    throw new Error(`${dir} already holds a repository; fdl demo builds a new one (remove it first)`);
  const data = demoDataDir();
  // A checkout makes the shipped key 0644; signing wants a private copy (0600).
  const keyDir = await makeWorkFolder('demo-key');
  try {
    const key = join(keyDir, 'demo_ed25519_DEMO_ONLY');
    await copyFile(join(data, 'demo_ed25519_DEMO_ONLY'), key);
    await chmod(key, 0o600);
    return await buildWith(dir, data, key, progress);
  } finally {
    await rm(keyDir, { recursive: true, force: true });
  }
}

async function buildWith(
  dir: string,
  data: string,
  key: string,
  progress?: (l: string) => void,
): Promise<{ v1: string; v2: string }> {
  const author = 'demo@fdl.example';
  await initRepository(dir, {
    id: '00000000-0000-4000-8000-00000000de40',
    signers: [await publicKeyLine(key, author)],
  });
  const common = { author, signKey: key, dataset: join(data, 'dataset.json'), progress };
  const v1 = await importData(dir, {
    ...common,
    message: 'initial load',
    tables: [
      { schema: 'sales', table: 'customers', file: join(data, 'customers.csv') },
      { schema: 'sales', table: 'orders', file: join(data, 'orders.csv') },
    ],
  });
  await tagCommand(dir, 'v1', v1.versionId);
  const v2 = await importData(dir, {
    ...common,
    message: 'February orders',
    tables: [{ schema: 'sales', table: 'orders', file: join(data, 'orders_feb.csv') }],
  });
  await tagCommand(dir, 'v2', v2.versionId);
  await branchCommand(dir, 'dev', v1.versionId);
  return { v1: v1.versionId, v2: v2.versionId };
}
