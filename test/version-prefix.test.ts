/**
 * Version ID prefixes resolve like Git's short IDs: at least 8 hex digits naming exactly one
 * version; an ambiguous prefix is 3D000 listing the candidates; a shorter one is no version; a ref
 * of the same name as a prefix of another version is 3D000 too (Git's "ambiguous"), one naming that
 * version is no ambiguity.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { buildDemo } from '../src/host/demo.js';
import { startGateway, type RunningGateway } from './support/gateway.js';

describe('version ID prefixes', () => {
  let work: string;
  let ids: { v1: string; v2: string };
  let gw: RunningGateway;

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'fdl-prefix-'));
    ids = await buildDemo(path.join(work, 'demo'));
    // twin: the demo plus a version folder whose ID differs from v1's only in its last digit
    cpSync(path.join(work, 'demo'), path.join(work, 'twin'), { recursive: true });
    const last = ids.v1.at(-1) === '0' ? '1' : '0';
    cpSync(
      path.join(work, 'twin', 'versions', ids.v1),
      path.join(work, 'twin', 'versions', ids.v1.slice(0, -1) + last),
      { recursive: true },
    );
    // named: the demo plus branches named like prefixes of v1 (pointing at v2) and of v2 (pointing at v2)
    cpSync(path.join(work, 'demo'), path.join(work, 'named'), { recursive: true });
    mkdirSync(path.join(work, 'named', 'refs', 'heads'), { recursive: true });
    writeFileSync(path.join(work, 'named', 'refs', 'heads', unique(ids.v1, ids.v2)), `${ids.v2}\n`);
    writeFileSync(path.join(work, 'named', 'refs', 'heads', unique(ids.v2, ids.v1)), `${ids.v2}\n`);
    gw = await startGateway([
      '--repo',
      `named=${path.join(work, 'named')}`,
      '--repo',
      `demo=${path.join(work, 'demo')}`,
      '--repo',
      `twin=${path.join(work, 'twin')}`,
      '--cache-dir',
      path.join(work, 'cache'),
    ]);
  });
  after(async () => {
    await gw?.stop();
    await rm(work, { recursive: true, force: true });
  });

  const version = async (db: string) => {
    const c = new pg.Client({ host: gw.host, port: gw.port, user: 'me', database: db });
    await c.connect();
    try {
      return Object.values((await c.query('show fdl.version')).rows[0] as object)[0] as string;
    } finally {
      await c.end();
    }
  };
  /** The shortest prefix of `id` (≥ 8 hex digits) that no other version shares. */
  const unique = (id: string, other: string) => {
    let n = 8;
    while (other.startsWith(id.slice(0, n)) || id.slice(0, n).replace(/-/g, '').length < 8) n++;
    return id.slice(0, n);
  };

  it('a unique prefix of 8 or more hex digits names its version', async () => {
    assert.equal(await version(`demo@${unique(ids.v1, ids.v2)}`), ids.v1);
    assert.equal(await version(`demo@${unique(ids.v2, ids.v1)}`), ids.v2);
    assert.equal(await version(`demo@${ids.v2.slice(0, 23)}`), ids.v2);
  });

  it('a prefix two versions share is 3D000 naming both; a prefix under 8 digits is no version', async () => {
    const shared = ids.v1.slice(0, -1);
    const twin = ids.v1.slice(0, -1) + (ids.v1.at(-1) === '0' ? '1' : '0');
    await assert.rejects(version(`twin@${shared}`), (e: { code: string; message: string; detail?: string }) => {
      assert.equal(e.code, '3D000');
      assert.match(e.message, /ambiguous version ID prefix/);
      assert.equal(e.detail, `candidates: ${[ids.v1, twin].sort().join(', ')}`);
      return true;
    });
    assert.equal(await version(`twin@${ids.v1}`), ids.v1, 'the whole ID still names it');
    await assert.rejects(
      version(`demo@${ids.v1.slice(0, 7)}`),
      (e: { code: string; message: string; hint?: string }) => {
        assert.equal(e.code, '3D000');
        assert.match(e.message, /unknown ref/);
        assert.match(e.hint ?? '', /a version ID prefix needs at least 8 hex digits/, 'the hint says the minimum');
        assert.match(e.hint ?? '', /available refs: /, 'and still lists the refs');
        return true;
      },
    );
    // a name that cannot be a prefix gets no such hint
    await assert.rejects(version('demo@no-such-branch'), (e: { code: string; hint?: string }) => {
      assert.equal(e.code, '3D000');
      assert.doesNotMatch(e.hint ?? '', /hex digits/);
      return true;
    });
  });

  it('a branch named like a prefix of another version is 3D000 naming both; its full name and the whole ID answer', async () => {
    const prefix = unique(ids.v1, ids.v2);
    // before: the branch silently took the prefix over (v2 answered where the prefix names v1)
    await assert.rejects(
      version(`named@${prefix}`),
      (e: { code: string; message: string; detail?: string; hint?: string }) => {
        assert.equal(e.code, '3D000');
        assert.match(e.message, /^ambiguous ref: refs\/heads\/[0-9a-f-]+ and a version ID prefix/);
        assert.equal(e.detail, `refs/heads/${prefix} -> ${ids.v2}; versions starting with it: ${ids.v1}`);
        assert.equal(e.hint, `use heads/${prefix} for the ref, or more digits of the version ID`);
        return true;
      },
    );
    assert.equal(await version(`named@heads/${prefix}`), ids.v2, 'the branch by its full name');
    assert.equal(await version(`named@${ids.v1}`), ids.v1, 'the version by its whole ID');
    // a branch named like a prefix of the very version it names: one answer, no ambiguity
    assert.equal(await version(`named@${unique(ids.v2, ids.v1)}`), ids.v2);
  });
});
