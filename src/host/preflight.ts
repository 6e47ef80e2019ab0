/**
 * Checks every publisher command makes before it writes anything: the signing key (a private key
 * file only its owner can read, without a passphrase unless a terminal can ask for it, one the
 * allowed signers list), the sources
 * (readable files), the target (a local root that is a writable folder, a bucket that takes a probe object). A refused command has
 * written nothing; what can only fail later is undone by the write journal (write-journal.ts).
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, readFile, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import sshpk from 'sshpk';
import { matchPatternList, parseAllowedSigners } from '../resolver/sshsig.js';
import { LocalTarget, S3Target, type WriteTarget } from './target.js';

const run = promisify(execFile);
const code = (e: unknown) => (e as { code?: string })?.code;

/** A terminal ssh-keygen can ask a passphrase on (it reads /dev/tty, not stdin). */
export function haveTerminal(): boolean {
  return process.stdin.isTTY === true || process.stderr.isTTY === true;
}

/**
 * A file the command reads: present, a regular file, readable. Judged by stat and access alone,
 * never by opening it: opening a named pipe with no writer blocks forever. `flag` names it in the
 * error (`--flag FILE: …`).
 */
export async function checkReadableFile(flag: string, file: string, label = `${flag} ${file}`): Promise<void> {
  const st = await stat(file).catch((e) => {
    if (code(e) === 'ENOENT') throw new Error(`${label}: no such file`);
    if (code(e) === 'EACCES') throw new Error(`${label}: not readable (permission denied)`);
    throw new Error(`${label}: ${(e as Error).message}`);
  });
  if (!st.isFile()) throw new Error(`${label}: not a file`);
  await access(file, constants.R_OK).catch(() => {
    throw new Error(`${label}: not readable (permission denied)`);
  });
}

/** A folder the command reads (--data-from). */
export async function checkReadableDir(flag: string, dir: string): Promise<void> {
  const st = await stat(dir).catch(() => null);
  if (!st) throw new Error(`${flag} ${dir}: no such folder`);
  if (!st.isDirectory()) throw new Error(`${flag} ${dir}: not a folder`);
  await access(dir, constants.R_OK | constants.X_OK).catch(() => {
    throw new Error(`${flag} ${dir}: not readable (permission denied)`);
  });
}

/**
 * --sign-key: readable, private (no group/other bits, as ssh itself demands), a private key
 * ssh-keygen loads. A passphrase-protected key needs a terminal; without one (CI, cron) it is
 * refused here instead of hanging after the data is written.
 */
export async function checkSignKey(file: string | undefined, terminal = haveTerminal()): Promise<void> {
  if (file === undefined) return;
  await checkReadableFile('--sign-key', file);
  // A .pub file given by mistake: say so before its (usual) 0644 mode would be blamed.
  if (/^(ssh-|ecdsa-|sk-)\S+ [A-Za-z0-9+/]+=*/.test((await readFile(file, 'utf8')).trimStart())) {
    throw new Error(`--sign-key ${file} is a public key; give the private key (the same path without .pub)`);
  }
  const mode = (await stat(file)).mode & 0o777;
  if (mode & 0o077)
    throw new Error(
      `--sign-key ${file} can be read by others (mode ${mode.toString(8).padStart(4, '0')}): run chmod 600 ${file}`,
    );
  try {
    await run('ssh-keygen', ['-y', '-P', '', '-f', file], { timeout: 30_000 });
  } catch (e) {
    const msg = String((e as { stderr?: string }).stderr ?? (e as Error).message);
    if (/incorrect passphrase/i.test(msg)) {
      if (!terminal)
        throw new Error(
          `--sign-key ${file} is protected by a passphrase and there is no terminal to ask for it: use a key without a passphrase for unattended runs`,
        );
      return;
    }
    throw new Error(
      `--sign-key ${file} is not an OpenSSH private key (${msg.trim().split('\n').at(-1) ?? 'unreadable'})`,
    );
  }
}

/**
 * A folder the command writes in: access(2) with W_OK answers EROFS on a read-only file system and
 * EACCES for permissions, and each is named as such. `because` starts the message.
 */
export async function checkWritableFolder(dir: string, because = ''): Promise<void> {
  await access(dir, constants.W_OK | constants.X_OK).catch((e) => {
    if (code(e) === 'EROFS') throw new Error(`${because}${dir} is on a read-only file system`);
    if (code(e) === 'EACCES' || code(e) === 'EPERM')
      throw new Error(`${because}${dir} is not writable (permission denied)`);
    throw new Error(`${because}${dir}: ${(e as Error).message}`);
  });
}

/**
 * A local target's root must be a writable folder, and the folders the writer adds to must be
 * folders; an S3 target's bucket must exist and take (and give back) a probe object.
 */
export async function checkWritableTarget(target: WriteTarget, folders: string[] = []): Promise<void> {
  if (!(target instanceof LocalTarget)) return target instanceof S3Target ? target.checkWritable() : undefined;
  const root = target.location;
  const st = await stat(root).catch(() => null);
  if (!st?.isDirectory()) throw new Error(`${root} is not a folder`);
  await checkWritableFolder(root);
  for (const f of folders) {
    const p = target.localPath(f.replace(/\/+$/, ''));
    const s = await stat(p).catch(() => null);
    if (s && !s.isDirectory()) throw new Error(`${p} is not a folder, so nothing can be written under it`);
    if (s) await checkWritableFolder(p);
  }
}

/** The --allowed-signers help of the commands that write a version. */
export const ALLOWED_SIGNERS_HELP =
  "refuse before writing unless --sign-key is a key this OpenSSH allowed_signers file trusts (namespace fdl, valid now); without it, the keys fdl.json's signers lists, if any";

/** `SHA256:…` of a private key file's public half: ssh-keygen -l reads it without the passphrase. */
async function keyFingerprint(file: string): Promise<string> {
  try {
    const { stdout } = await run('ssh-keygen', ['-l', '-E', 'sha256', '-f', file], { timeout: 30_000 });
    const fp = /SHA256:[A-Za-z0-9+/]+/.exec(stdout)?.[0];
    if (fp) return fp;
  } catch {
    /* said below */
  }
  throw new Error(`--sign-key ${file}: cannot read its public key to check it against the allowed signers`);
}

const fingerprintOf = (blob: Buffer) => sshpk.parseKey(blob, 'rfc4253').fingerprint('sha256').toString();

/**
 * The signing key must be one readers trust, or the version they get is refused (28000) after it
 * was written: with --allowed-signers FILE, a line of FILE that lists the key for namespace fdl and
 * is valid now; without it, when the repository's fdl.json lists `signers` (the keys its writers
 * sign with, FDL-0.1 Part 1), one of those. `where` names the repository.
 */
export async function checkAllowedSigner(
  signKey: string | undefined,
  allowedSigners: string | undefined,
  repoSigners: string[],
  where: string,
): Promise<void> {
  if (allowedSigners !== undefined) {
    await checkReadableFile('--allowed-signers', allowedSigners);
    if (signKey === undefined)
      throw new Error(
        `--allowed-signers ${allowedSigners} is given but no --sign-key: the version would be unsigned, and readers that require signatures would refuse it`,
      );
  }
  if (signKey === undefined || (allowedSigners === undefined && repoSigners.length === 0)) return;
  const fp = await keyFingerprint(signKey);
  const source = allowedSigners ?? `${where}/fdl.json`;
  const text = allowedSigners !== undefined ? await readFile(allowedSigners, 'utf8') : repoSigners.join('\n');
  const listed = parseAllowedSigners(text).signers.filter((s) => fingerprintOf(s.blob) === fp);
  const named = allowedSigners !== undefined ? `--allowed-signers ${allowedSigners}` : `the signers ${source} lists`;
  if (listed.length === 0)
    throw new Error(
      `--sign-key ${signKey} (${fp}) is not in ${named}: readers that trust those keys would refuse the version`,
    );
  const now = new Date();
  let why = '';
  for (const s of listed) {
    const who = `${s.principals[0]} (${source} line ${s.line})`;
    if (s.namespaces && !matchPatternList('fdl', s.namespaces))
      why ||= `${who} may sign only for namespaces ${s.namespaces.join(',')}, not fdl`;
    else if (s.validBefore && now > s.validBefore)
      why ||= `${who} was valid only before ${s.validBefore.toISOString()}`;
    else if (s.validAfter && now < s.validAfter) why ||= `${who} is valid only after ${s.validAfter.toISOString()}`;
    else return;
  }
  throw new Error(`--sign-key ${signKey} (${fp}): ${why}, so readers would refuse the version`);
}
