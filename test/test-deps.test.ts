/**
 * `npm test` installs missing Debian packages through scripts/test-deps.sh; when another apt or
 * dpkg holds the package lock it waits instead of failing at once. Real apt-get, pointed by
 * APT_CONFIG at lists, status and caches of the test's own (no sources, so nothing is downloaded
 * and the machine's package state is never touched); the lock is held by another process with
 * fcntl, as apt itself takes it. DPkg::Lock::Timeout alone does not cover `apt-get update`.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT, waitFor } from './support/gateway.js';

const work = mkdtempSync(join(tmpdir(), 'fdl-test-deps-'));
after(() => rmSync(work, { recursive: true, force: true }));

const root = process.getuid?.() === 0;

describe('scripts/test-deps.sh', () => {
  it(
    'waits while another process holds the apt lists lock, then goes on',
    { skip: !root && 'needs root' },
    async () => {
      for (const d of ['lists/partial', 'sources.d', 'dpkg', 'cache/archives/partial'])
        mkdirSync(join(work, d), { recursive: true });
      writeFileSync(join(work, 'dpkg/status'), '');
      writeFileSync(
        join(work, 'apt.conf'),
        [
          'Dir::Etc::SourceList "/dev/null";',
          `Dir::Etc::SourceParts "${work}/sources.d";`,
          `Dir::State::Lists "${work}/lists";`,
          `Dir::State::status "${work}/dpkg/status";`,
          `Dir::Cache "${work}/cache";`,
          '',
        ].join('\n'),
      );
      const held = join(work, 'held');
      const holdMs = 5000;
      const holder = spawn('python3', [
        '-c',
        `import fcntl, time\nf = open(${JSON.stringify(join(work, 'lists/lock'))}, 'a+')\nfcntl.lockf(f, fcntl.LOCK_EX)\nopen(${JSON.stringify(held)}, 'w').close()\ntime.sleep(${holdMs / 1000})`,
      ]);
      const holderEnded = new Promise((r) => holder.on('exit', r));
      await waitFor(() => existsSync(held), 'the lock held', 30_000, 20);
      const t0 = Date.now();
      const script = spawn(join(ROOT, 'scripts/test-deps.sh'), [], {
        env: {
          ...process.env,
          APT_CONFIG: join(work, 'apt.conf'),
          FDL_TEST_DEPS: 'install',
          FDL_TEST_DEPS_PACKAGES: 'fdl-test-no-such-package',
        },
      });
      let stderr = '';
      script.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise((r) => script.on('exit', r));
      const waited = Date.now() - t0;
      await holderEnded;
      // It waited for the lock (said so, and for about as long as it was held), then apt ran: the
      // package is unknown (no sources), which is the failure that ends it.
      assert.match(stderr, /^test-deps: waiting for the package lock \(held by process \d+ \(python3\)\)$/m);
      assert.doesNotMatch(stderr, /Could not get lock/);
      assert.match(stderr, /E: Unable to locate package fdl-test-no-such-package/);
      assert.equal(code, 1);
      assert.ok(waited > holdMs / 2, `returned after ${waited} ms, while the lock was held for ${holdMs} ms`);
    },
  );
});
