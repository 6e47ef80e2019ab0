/**
 * The README's table of config file keys names every key the file accepts (an unknown key is
 * refused at start, so an undocumented one could never be found) and only those.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigFile } from '../src/cli/config.js';

test('README › Configuration file lists each config file key once, with no key the file refuses', () => {
  const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Configuration file'),
    readme.indexOf('\n## ', readme.indexOf('## Configuration file') + 1),
  );
  const documented = section
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .flatMap((l) => [...l.split('|')[1]!.matchAll(/`(\w+)`/g)].map((m) => m[1]!));
  const keys = Object.keys(ConfigFile.shape).sort();
  assert.deepEqual([...documented].sort(), keys);
  assert.ok(
    ConfigFile.safeParse({ s3: { endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', forcePathStyle: true } })
      .success,
  );
});
