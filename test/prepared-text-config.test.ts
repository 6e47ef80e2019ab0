/**
 * `maxPreparedText`: the per-user budget of named prepared statements' text is the operator's to set
 * in the config file, validated there, and changed by a reload (SIGHUP) for the sessions that start
 * after it, as the other session limits are.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildConfig, ConfigError } from '../src/cli/config.js';
import { DEFAULT_MAX_PREPARED_TEXT } from '../src/session/named-limits.js';
import { copyFixtures, startGateway, type RunningGateway, waitFor } from './support/gateway.js';
import { RawPg } from './support/raw-pg.js';

describe('maxPreparedText in the config file', () => {
  const repos = copyFixtures('repos/basic');
  const configFile = join(repos.dir, 'gateway.json');
  const write = (extra: object) =>
    writeFileSync(configFile, JSON.stringify({ repos: { basic: repos.path('repos/basic') }, ...extra }));
  let gw: RunningGateway;

  before(async () => {
    write({ maxPreparedText: 1000 });
    gw = await startGateway(['--config', configFile, '--cache-dir', join(repos.dir, 'cache')]);
  });
  after(async () => {
    await gw?.stop();
    repos.cleanup();
  });

  /** A statement of exactly `n` characters. */
  const text = (n: number) => {
    const head = "select '";
    return `${head}${'x'.repeat(n - head.length - 1)}'`;
  };

  test('validated: a positive integer, the default 4 MiB', () => {
    for (const bad of [0, -1, 1.5, '1000']) {
      write({ maxPreparedText: bad });
      assert.throws(
        () => buildConfig({ config: configFile }),
        (e: unknown) => {
          assert.ok(e instanceof ConfigError);
          assert.match(e.message, /maxPreparedText: /);
          return true;
        },
      );
    }
    write({});
    assert.equal(buildConfig({ config: configFile }).limits.maxPreparedText, DEFAULT_MAX_PREPARED_TEXT);
    write({ maxPreparedText: 1000 });
    assert.equal(buildConfig({ config: configFile }).limits.maxPreparedText, 1000);
  });

  test("one user's named statements past the configured text answer 53400 naming it; a reload raises it for new sessions", async () => {
    write({ maxPreparedText: 1000 });
    const a = await RawPg.connect({ port: gw.port, database: 'basic', user: 'ann' });
    const b = await RawPg.connect({ port: gw.port, database: 'basic', user: 'ann' });
    assert.equal((await a.simple(`prepare p1 as ${text(600)}`)).error, undefined);
    // 600 + 400 is the limit exactly; one character more, in another session of the user, is not.
    const refused = (await b.simple(`prepare p2 as ${text(401)}`)).error;
    assert.equal(refused?.code, '53400');
    assert.match(refused!.message, /would hold 1001 characters of text: the limit is 1000$/);
    assert.equal((await b.simple('execute p2')).error?.code, '26000'); // nothing kept
    assert.equal((await b.simple(`prepare p2 as ${text(400)}`)).error, undefined);

    const reloads = () => (gw.stderr().match(/"event":"reload"/g) ?? []).length;
    const n = reloads();
    write({ maxPreparedText: 5000 });
    gw.proc.kill('SIGHUP');
    await waitFor(() => reloads() > n, 'the reload', 20_000);
    // A session started after the reload holds the new budget; the user's other 1000 count in it.
    const c = await RawPg.connect({ port: gw.port, database: 'basic', user: 'ann' });
    assert.equal((await c.simple(`prepare p3 as ${text(3991)}`)).error, undefined);
    const past = (await c.simple(`prepare p4 as ${text(10)}`)).error;
    assert.equal(past?.code, '53400');
    assert.match(past!.message, /would hold 5001 characters of text: the limit is 5000$/);
    for (const s of [a, b, c]) await s.close();
  });
});
