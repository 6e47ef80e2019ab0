// SSHSIG verification against signatures made by the real ssh-keygen (-Y sign -n fdl).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, copyFile, cp, mkdtemp, readFile, readdir, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllowedSigners, verifySshsig, parseSshTime, matchPatternList } from '../src/resolver/sshsig.js';
import { openRepository } from '../src/resolver/index.js';
import { FsStore } from '../src/store/fs-store.js';
import { SqlError } from '../src/errors.js';

const FIX = resolve(fileURLToPath(import.meta.url), '../../../test/fixtures');
const dir = await mkdtemp(join(tmpdir(), 'fdl-sshsig-'));
const keygen = (...args: string[]) => execFileSync('ssh-keygen', args, { stdio: ['ignore', 'pipe', 'pipe'] });

const KEYS: Record<string, string[]> = {
  ed25519: ['-t', 'ed25519'],
  p256: ['-t', 'ecdsa', '-b', '256'],
  p384: ['-t', 'ecdsa', '-b', '384'],
  p521: ['-t', 'ecdsa', '-b', '521'],
  rsa: ['-t', 'rsa', '-b', '2048'],
};
for (const [name, args] of Object.entries(KEYS))
  keygen('-q', ...args, '-N', '', '-C', `${name}@test`, '-f', join(dir, name));
const pub = async (name: string) =>
  (await readFile(join(dir, `${name}.pub`), 'utf8')).trim().split(' ').slice(0, 2).join(' ');

const message = Buffer.from('{"fdl":"0.1","id":"x","catalogs":[]}\n');
await writeFile(join(dir, 'msg'), message);

/** Signs `msg` with the key and returns the armored signature (ssh-keygen writes msg.sig). */
async function sign(key: string, namespace = 'fdl', hashalg?: string, file = join(dir, 'msg')): Promise<string> {
  await unlink(`${file}.sig`).catch(() => {});
  keygen(
    '-Y',
    'sign',
    '-q',
    '-f',
    join(dir, key),
    '-n',
    namespace,
    ...(hashalg ? ['-O', `hashalg=${hashalg}`] : []),
    file,
  );
  return readFile(`${file}.sig`, 'utf8');
}

async function trust(lines: string[]) {
  const { signers, warnings } = parseAllowedSigners(lines.join('\n'));
  return { signers, warnings };
}

test('G for every key type and hash made by ssh-keygen; U when the key is not trusted', async () => {
  const cases: [string, string | undefined][] = [
    ['ed25519', undefined],
    ['ed25519', 'sha256'],
    ['p256', undefined],
    ['p384', undefined],
    ['p521', 'sha256'],
    ['rsa', 'sha256'],
    ['rsa', 'sha512'],
    ['rsa', undefined],
  ];
  for (const [key, hash] of cases) {
    const sig = await sign(key, 'fdl', hash);
    const { signers } = await trust([`${key}@test ${await pub(key)}`]);
    const res = verifySshsig(message, sig, signers);
    assert.equal(res.status, 'G', `${key} ${hash ?? 'default'}: ${JSON.stringify(res)}`);
    assert.equal(res.signer, `${key}@test`);
    // the fingerprint is the one ssh-keygen prints
    const fp = keygen('-l', '-E', 'sha256', '-f', join(dir, `${key}.pub`))
      .toString()
      .split(' ')[1];
    assert.equal(res.fingerprint, fp);
    const other = key === 'ed25519' ? 'p256' : 'ed25519';
    const untrusted = verifySshsig(message, sig, (await trust([`x@test ${await pub(other)}`])).signers);
    assert.deepEqual([untrusted.status, untrusted.reason], ['U', 'unknown key']);
    // B: the same signature over other bytes
    const bad = verifySshsig(Buffer.from(message.toString().replace('x', 'y')), sig, signers);
    assert.deepEqual([bad.status, bad.reason], ['B', 'bad signature'], key);
  }
});

test('wrong namespace, expired and not-yet-valid keys, namespaces= limits, cert-authority, N and malformed', async () => {
  const key = await pub('ed25519');
  const good = await sign('ed25519');
  const git = await sign('ed25519', 'git');
  const ok = (await trust([`a@test ${key}`])).signers;
  assert.deepEqual(pick(verifySshsig(message, git, ok)), ['B', 'wrong namespace']);
  const expired = (await trust([`a@test valid-before="20200101" ${key}`])).signers;
  assert.deepEqual(pick(verifySshsig(message, good, expired)), ['U', 'expired key']);
  assert.equal(verifySshsig(message, good, expired, { time: new Date('2019-06-01T00:00:00Z') }).status, 'G');
  const future = (await trust([`a@test valid-after="20990101Z" ${key}`])).signers;
  assert.deepEqual(pick(verifySshsig(message, good, future)), ['U', 'key not yet valid']);
  const window = (await trust([`a@test namespaces="fdl",valid-after="20200101",valid-before="20990101" ${key}`]))
    .signers;
  assert.equal(verifySshsig(message, good, window).status, 'G');
  const otherNs = (await trust([`a@test namespaces="git,file" ${key}`])).signers;
  assert.deepEqual(pick(verifySshsig(message, good, otherNs)), ['U', 'key not allowed for namespace']);
  const wild = (await trust([`a@test,b@test namespaces="f*" ${key}`])).signers;
  assert.equal(verifySshsig(message, good, wild).status, 'G');
  const ca = await trust([`*@test cert-authority ${key}`]);
  assert.equal(ca.signers.length, 0);
  assert.match(ca.warnings[0]!, /cert-authority/);
  assert.deepEqual(pick(verifySshsig(message, good, ca.signers)), ['U', 'unknown key']);
  assert.deepEqual(pick(verifySshsig(message, null, ok)), ['N', 'no signature']);
  assert.deepEqual(pick(verifySshsig(message, 'garbage', ok)), ['B', 'malformed signature']);
  assert.deepEqual(
    pick(
      verifySshsig(
        message,
        rearmor(good, (b) => b.subarray(0, b.length - 10)),
        ok,
      ),
    ),
    ['B', 'malformed signature'],
  );
  assert.deepEqual(
    pick(
      verifySshsig(
        message,
        rearmor(good, (b) => Buffer.concat([b, Buffer.from([0])])),
        ok,
      ),
    ),
    ['B', 'malformed signature'],
  );
  assert.deepEqual(pick(verifySshsig(message, rearmor(good, flipLast), ok)), ['B', 'bad signature']);
  // our verdict agrees with ssh-keygen -Y verify
  await writeFile(join(dir, 'allowed'), `a@test namespaces="fdl" ${key}\n`);
  await writeFile(join(dir, 'msg.sig'), good);
  execFileSync(
    'ssh-keygen',
    ['-Y', 'verify', '-f', join(dir, 'allowed'), '-I', 'a@test', '-n', 'fdl', '-s', join(dir, 'msg.sig')],
    { input: message },
  );
  assert.equal(parseSshTime('20240101Z')!.toISOString(), '2024-01-01T00:00:00.000Z');
  assert.equal(parseSshTime('202401011230Z')!.toISOString(), '2024-01-01T12:30:00.000Z');
  assert.equal(parseSshTime('2024'), null);
  assert.ok(matchPatternList('fdl', ['*']) && !matchPatternList('fdl', ['*', '!fdl']));
});

test('fixture keys: alice, bob and carol are trusted; mallory is not', async () => {
  const { signers, warnings } = parseAllowedSigners(await readFile(join(FIX, 'keys/allowed_signers'), 'utf8'));
  assert.equal(warnings.length, 0);
  assert.equal(signers.length, 3);
  for (const [k, who] of [
    ['alice_ed25519', 'alice@example.org'],
    ['bob_ecdsa_p256', 'bob@example.org'],
    ['carol_rsa', 'carol@example.org'],
    ['mallory_ed25519', null],
  ] as const) {
    await copyFile(join(FIX, 'keys', k), join(dir, k));
    await chmod(join(dir, k), 0o600); // ssh-keygen refuses world-readable private keys
    const sig = await sign(k);
    const res = verifySshsig(message, sig, signers, { time: new Date('2026-12-01T00:00:00Z') });
    assert.equal(res.status, who ? 'G' : 'U', k);
    if (who) assert.equal(res.signer, who);
  }
  // carol's line says valid-after="20240101"
  const carolSig = await sign('carol_rsa');
  assert.deepEqual(pick(verifySshsig(message, carolSig, signers, { time: new Date('2023-06-01T00:00:00Z') })), [
    'U',
    'key not yet valid',
  ]);
});

test('repository policy: require refuses with 28000 saying why; prefer serves with the status', async () => {
  const repoDir = join(dir, 'repo');
  await cp(join(FIX, 'repos/empty'), repoDir, { recursive: true });
  const walk = async (p: string): Promise<void> => {
    const st = await stat(p);
    await chmod(p, st.isDirectory() ? 0o755 : 0o644);
    if (st.isDirectory()) for (const n of await readdir(p)) await walk(join(p, n));
  };
  await walk(repoDir);
  const id = (await readFile(join(repoDir, 'refs/heads/main'), 'utf8')).trim();
  const vj = join(repoDir, 'versions', id, 'version.json');
  const allowed = join(dir, 'repo_allowed');
  const open = (policy: 'require' | 'prefer') =>
    openRepository('e', new FsStore(repoDir), { signatures: policy, allowedSigners: allowed, refTtlMs: 0 });
  const expectRefusal = async (why: string) => {
    const repo = await open('require');
    await assert.rejects(
      repo.openVersion(id),
      (e: unknown) => e instanceof SqlError && e.sqlstate === '28000' && e.message.includes(why) && true,
    );
    const soft = await open('prefer');
    const v = await soft.openVersion(id);
    assert.notEqual(v.signature.status, 'G');
    return v.signature;
  };
  const key = await pub('p384');
  await writeFile(allowed, `p384@test namespaces="fdl" ${key}\n`);
  await expectRefusal('no signature');
  await sign('p384', 'fdl', undefined, vj);
  assert.equal((await (await open('require')).openVersion(id)).signature.status, 'G');
  await sign('p384', 'git', undefined, vj);
  assert.equal((await expectRefusal('namespace')).status, 'B');
  await sign('ed25519', 'fdl', undefined, vj);
  assert.equal((await expectRefusal('unknown key')).status, 'U');
  await sign('p384', 'fdl', undefined, vj);
  await writeFile(allowed, `p384@test valid-before="20200101" ${key}\n`);
  assert.equal((await expectRefusal('expired key')).reason, 'expired key');
  await writeFile(allowed, `p384@test ${key}\n`);
  const sig = await readFile(`${vj}.sig`, 'utf8');
  await writeFile(`${vj}.sig`, rearmor(sig, flipLast));
  assert.equal((await expectRefusal('signature invalid')).status, 'B');
});

function pick(s: { status: string; reason?: string }): [string, string | undefined] {
  return [s.status, s.reason];
}

/** Decodes an armored SSHSIG, changes its bytes and armors it again. */
function rearmor(armored: string, change: (b: Buffer) => Buffer): string {
  const b64 = armored.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
  const body = change(Buffer.from(b64, 'base64'))
    .toString('base64')
    .replace(/.{1,70}/g, '$&\n');
  return `-----BEGIN SSH SIGNATURE-----\n${body}-----END SSH SIGNATURE-----\n`;
}

function flipLast(b: Buffer): Buffer {
  const c = Buffer.from(b);
  c[c.length - 3] = c[c.length - 3]! ^ 0x55;
  return c;
}

test('valid-before and valid-after are judged now, not at the signer-chosen created date: a revoked key cannot sign a backdated version', async () => {
  const repoDir = join(dir, 'repo-dated');
  await cp(join(FIX, 'repos/empty'), repoDir, { recursive: true });
  const walk = async (p: string): Promise<void> => {
    const st = await stat(p);
    await chmod(p, st.isDirectory() ? 0o755 : 0o644);
    if (st.isDirectory()) for (const n of await readdir(p)) await walk(join(p, n));
  };
  await walk(repoDir);
  const id = (await readFile(join(repoDir, 'refs/heads/main'), 'utf8')).trim();
  const vj = join(repoDir, 'versions', id, 'version.json');
  const allowed = join(dir, 'dated_allowed');
  const key = await pub('ed25519');
  const open = () =>
    openRepository('d', new FsStore(repoDir), { signatures: 'require', allowedSigners: allowed, refTtlMs: 0 });
  const refused = async (why: string) =>
    assert.rejects(
      (await open()).openVersion(id),
      (e: unknown) => e instanceof SqlError && e.sqlstate === '28000' && e.message.includes(why),
    );
  const dated = async (created: string) => {
    const rec = JSON.parse(await readFile(vj, 'utf8')) as Record<string, unknown>;
    await writeFile(vj, JSON.stringify({ ...rec, created }));
    await sign('ed25519', 'fdl', undefined, vj);
  };
  // the key was revoked at the start of 2020; its holder signs a version dated 2019
  await writeFile(allowed, `ed@test valid-before="20200101Z" ${key}\n`);
  await dated('2019-06-01T00:00:00Z');
  await refused('expired key');
  // a key valid only from 2099 signs a version dated 2100
  await writeFile(allowed, `ed@test valid-after="20990101Z" ${key}\n`);
  await dated('2100-01-01T00:00:00Z');
  await refused('not yet valid');
  // within its window now, whatever the date in version.json: G
  await writeFile(allowed, `ed@test valid-after="20200101Z",valid-before="20990101Z" ${key}\n`);
  await dated('2019-06-01T00:00:00Z');
  assert.equal((await (await open()).openVersion(id)).signature.status, 'G');
});
