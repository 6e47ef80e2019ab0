/**
 * Signatures with stock OpenSSH: `ssh-keygen -Y sign -n fdl`, so anything the host signs verifies
 * with `ssh-keygen -Y verify` and with the gateway's own SSHSIG check.
 */
import { execFile } from 'node:child_process';
import { copyFile, chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { makeWorkFolder } from './work-folder.js';

const run = promisify(execFile);

/** Armored SSHSIG over `message`. The key is copied to a 0600 temp file: ssh-keygen refuses
 *  group/world-readable keys, and a key checked out of git (the demo key) is 0644. */
export async function sshSign(message: Buffer, privateKeyFile: string, namespace = 'fdl'): Promise<Buffer> {
  const dir = await makeWorkFolder('sign');
  try {
    const key = join(dir, 'key');
    await copyFile(privateKeyFile, key);
    await chmod(key, 0o600);
    const msg = join(dir, 'version.json');
    await writeFile(msg, message);
    try {
      await run('ssh-keygen', ['-Y', 'sign', '-n', namespace, '-f', key, msg], { timeout: 30_000 });
    } catch (e) {
      const err = e as { stderr?: string; message: string };
      throw new Error(`ssh-keygen -Y sign failed for ${privateKeyFile}: ${(err.stderr || err.message).trim()}`);
    }
    return await readFile(`${msg}.sig`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `principal keytype base64` for fdl.json signers, from the key's public half. */
export async function publicKeyLine(privateKeyFile: string, principal: string): Promise<string> {
  const dir = await makeWorkFolder('pub');
  try {
    const key = join(dir, 'key');
    await copyFile(privateKeyFile, key);
    await chmod(key, 0o600);
    const { stdout } = await run('ssh-keygen', ['-y', '-f', key], { timeout: 30_000 });
    const [type, b64] = stdout.trim().split(/\s+/);
    return `${principal} ${type} ${b64}`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
