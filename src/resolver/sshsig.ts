/**
 * OpenSSH SSHSIG verification (`ssh-keygen -Y sign` / PROTOCOL.sshsig) and `allowed_signers`
 * parsing. sshpk parses keys (it cannot parse SSHSIG itself); node:crypto does the maths, with the
 * hash each signature type mandates (sshpk's default-hash verify gets rsa-sha2-512 wrong).
 */
import { createHash, createPublicKey, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import sshpk from 'sshpk';

export type SignatureStatusCode = 'G' | 'U' | 'B' | 'N';

export interface SignatureStatus {
  /** G good and trusted, U good but key unknown/not valid now, B bad, N none — as git's %G?. */
  status: SignatureStatusCode;
  /** Principal of the trusted key (G, or U for an expired/not-yet-valid trusted key). */
  signer?: string;
  /** SHA256:… fingerprint of the signing key, as ssh-keygen prints it. */
  fingerprint?: string;
  /** Why it is not G: 'no signature', 'unknown key', 'expired key', 'key not yet valid', 'bad signature', 'wrong namespace', 'malformed signature', 'key not allowed for namespace'. */
  reason?: string;
  detail?: string;
}

export interface TrustedSigner {
  principals: string[];
  blob: Buffer;
  keyType: string;
  namespaces?: string[];
  validAfter?: Date;
  validBefore?: Date;
  line: number;
}

// ---------------------------------------------------------------- allowed_signers

/** Splits at unquoted whitespace, keeping quoted runs (namespaces="a, b") inside one token. */
function tokens(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    if (!quoted && /\s/.test(ch)) {
      if (cur) {
        out.push(cur);
        cur = '';
      }
    } else cur += ch;
  }
  if (cur) out.push(cur);
  return out;
}

const KEY_TYPE = /^(ssh-|ecdsa-|sk-|rsa-)/;

/** YYYYMMDD[Z] | YYYYMMDDHHMM[SS][Z]; local time unless Z, as in ssh-keygen. */
export function parseSshTime(s: string): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2})?)?(Z)?$/i.exec(s);
  if (!m) return null;
  const [y, mo, d, h, mi, se] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number) as number[];
  const date = m[7] ? new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, se!)) : new Date(y!, mo! - 1, d!, h!, mi!, se!);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** Parses an allowed_signers file. Lines we cannot honour (cert-authority, bad keys) are reported, not trusted. */
export function parseAllowedSigners(text: string): { signers: TrustedSigner[]; warnings: string[] } {
  const signers: TrustedSigner[] = [];
  const warnings: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const t = tokens(line);
    const where = `allowed_signers line ${i + 1}`;
    if (t.length < 3) return void warnings.push(`${where}: too few fields`);
    const principals = t[0]!.replace(/^"|"$/g, '').split(',').filter(Boolean);
    let k = 1;
    const signer: Partial<TrustedSigner> = { principals, line: i + 1 };
    if (!KEY_TYPE.test(t[1]!)) {
      k = 2;
      const opts = t[1]!.match(/(?:[^,"]+|"[^"]*")+/g) ?? [];
      for (const opt of opts) {
        const eq = opt.indexOf('=');
        const name = (eq < 0 ? opt : opt.slice(0, eq)).toLowerCase();
        const value = eq < 0 ? '' : opt.slice(eq + 1).replace(/^"|"$/g, '');
        if (name === 'cert-authority')
          return void warnings.push(
            `${where}: cert-authority is not supported (certificates are refused); line ignored`,
          );
        if (name === 'namespaces')
          signer.namespaces = value
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
        else if (name === 'valid-after' || name === 'valid-before') {
          const d = parseSshTime(value);
          if (!d) return void warnings.push(`${where}: cannot parse ${name}="${value}"; line ignored`);
          if (name === 'valid-after') signer.validAfter = d;
          else signer.validBefore = d;
        } else return void warnings.push(`${where}: unknown option ${name}; line ignored`);
      }
    }
    if (t.length < k + 2) return void warnings.push(`${where}: missing key`);
    try {
      const key = sshpk.parseKey(`${t[k]} ${t[k + 1]}`, 'ssh');
      signer.blob = key.toBuffer('rfc4253');
      signer.keyType = t[k]!;
    } catch (e) {
      return void warnings.push(`${where}: cannot parse key: ${(e as Error).message}`);
    }
    signers.push(signer as TrustedSigner);
  });
  return { signers, warnings };
}

/** OpenSSH pattern lists: '*' and '?' wildcards, '!' negates (a negated match wins). */
export function matchPatternList(value: string, patterns: string[]): boolean {
  let ok = false;
  for (const p of patterns) {
    const neg = p.startsWith('!');
    const pat = neg ? p.slice(1) : p;
    const re = new RegExp(
      '^' +
        pat
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '.*')
          .replace(/\?/g, '.') +
        '$',
    );
    if (re.test(value)) {
      if (neg) return false;
      ok = true;
    }
  }
  return ok;
}

// ---------------------------------------------------------------- SSHSIG

class Reader {
  private o = 0;
  constructor(private readonly b: Buffer) {}
  bytes(n: number): Buffer {
    if (this.o + n > this.b.length) throw new Error('truncated');
    const r = this.b.subarray(this.o, this.o + n);
    this.o += n;
    return r;
  }
  u32(): number {
    return this.bytes(4).readUInt32BE(0);
  }
  str(): Buffer {
    return this.bytes(this.u32());
  }
  get done(): boolean {
    return this.o === this.b.length;
  }
}

const sshString = (b: Buffer | string): Buffer => {
  const buf = typeof b === 'string' ? Buffer.from(b) : b;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(buf.length);
  return Buffer.concat([len, buf]);
};

interface Sshsig {
  publicKey: Buffer;
  namespace: string;
  hashAlg: string;
  sigType: string;
  sigBlob: Buffer;
}

function parseArmored(armored: string): Sshsig {
  const m = /^\s*-----BEGIN SSH SIGNATURE-----\r?\n([A-Za-z0-9+/=\s]+?)-----END SSH SIGNATURE-----\s*$/.exec(armored);
  if (!m) throw new Error('not an armored SSH signature');
  const r = new Reader(Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64'));
  if (r.bytes(6).toString('latin1') !== 'SSHSIG') throw new Error('bad magic');
  const v = r.u32();
  if (v !== 1) throw new Error(`unsupported SSHSIG version ${v}`);
  const publicKey = r.str();
  const namespace = r.str().toString('utf8');
  r.str(); // reserved
  const hashAlg = r.str().toString('utf8');
  const sig = new Reader(r.str());
  if (!r.done) throw new Error('trailing data after signature');
  const sigType = sig.str().toString('utf8');
  const sigBlob = sig.str();
  if (!sig.done) throw new Error('trailing data in signature (security-key signatures are not supported)');
  return { publicKey, namespace, hashAlg, sigType, sigBlob };
}

/** mpint → unsigned big-endian integer left-padded to `len` bytes (for IEEE P1363 encoding). */
function unsignedFixed(mpint: Buffer, len: number): Buffer {
  let b = mpint;
  while (b.length > 0 && b[0] === 0) b = b.subarray(1);
  if (b.length > len) throw new Error('ecdsa integer too large');
  return Buffer.concat([Buffer.alloc(len - b.length), b]);
}

const ECDSA: Record<string, { hash: string; len: number }> = {
  'ecdsa-sha2-nistp256': { hash: 'sha256', len: 32 },
  'ecdsa-sha2-nistp384': { hash: 'sha384', len: 48 },
  'ecdsa-sha2-nistp521': { hash: 'sha512', len: 66 },
};

/** True when the maths holds; throws for signature types that do not fit the key. */
function verifyRaw(keyType: string, key: KeyObject, sigType: string, sigBlob: Buffer, data: Buffer): boolean {
  if (keyType === 'ssh-ed25519') {
    if (sigType !== 'ssh-ed25519') throw new Error(`signature type ${sigType} does not fit an ed25519 key`);
    return cryptoVerify(null, data, key, sigBlob);
  }
  if (keyType === 'ssh-rsa') {
    // ssh-rsa (SHA-1) signatures are refused, as OpenSSH does for SSHSIG
    const hash = sigType === 'rsa-sha2-256' ? 'sha256' : sigType === 'rsa-sha2-512' ? 'sha512' : null;
    if (!hash) throw new Error(`signature type ${sigType} is not allowed for rsa keys`);
    if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < 1024) throw new Error('rsa key too small');
    return cryptoVerify(hash, data, key, sigBlob);
  }
  const ec = ECDSA[keyType];
  if (ec) {
    if (sigType !== keyType) throw new Error(`signature type ${sigType} does not fit a ${keyType} key`);
    const rs = new Reader(sigBlob);
    const sig = Buffer.concat([unsignedFixed(rs.str(), ec.len), unsignedFixed(rs.str(), ec.len)]);
    return cryptoVerify(ec.hash, data, { key, dsaEncoding: 'ieee-p1363' }, sig);
  }
  throw new Error(`unsupported key type ${keyType}`);
}

export interface VerifyOptions {
  namespace?: string;
  /** Time at which valid-after/valid-before are evaluated. */
  time?: Date;
}

/**
 * Verifies an armored SSHSIG over `message` against trusted signers. Never throws: every
 * outcome is a status with a reason, so callers apply their own policy.
 */
export function verifySshsig(
  message: Buffer,
  armored: string | Buffer | null,
  trusted: TrustedSigner[],
  opts: VerifyOptions = {},
): SignatureStatus {
  if (armored === null) return { status: 'N', reason: 'no signature' };
  const namespace = opts.namespace ?? 'fdl';
  let sig: Sshsig;
  let key: sshpk.Key;
  try {
    sig = parseArmored(armored.toString());
    key = sshpk.parseKey(sig.publicKey, 'rfc4253');
  } catch (e) {
    return { status: 'B', reason: 'malformed signature', detail: (e as Error).message };
  }
  const fingerprint = key.fingerprint('sha256').toString();
  if (sig.namespace !== namespace) {
    return {
      status: 'B',
      fingerprint,
      reason: 'wrong namespace',
      detail: `signed for namespace "${sig.namespace}", expected "${namespace}"`,
    };
  }
  if (sig.hashAlg !== 'sha256' && sig.hashAlg !== 'sha512') {
    return { status: 'B', fingerprint, reason: 'malformed signature', detail: `unsupported hash ${sig.hashAlg}` };
  }
  const keyType = new Reader(sig.publicKey).str().toString('utf8');
  const signed = Buffer.concat([
    Buffer.from('SSHSIG'),
    sshString(namespace),
    sshString(''), // reserved: OpenSSH signs and verifies with an empty string
    sshString(sig.hashAlg),
    sshString(createHash(sig.hashAlg).update(message).digest()),
  ]);
  let good: boolean;
  try {
    good = verifyRaw(keyType, createPublicKey(key.toString('pkcs8')), sig.sigType, sig.sigBlob, signed);
  } catch (e) {
    return { status: 'B', fingerprint, reason: 'malformed signature', detail: (e as Error).message };
  }
  if (!good)
    return {
      status: 'B',
      fingerprint,
      reason: 'bad signature',
      detail: 'the signature does not match the content of version.json',
    };

  const candidates = trusted.filter((t) => t.blob.equals(sig.publicKey));
  if (candidates.length === 0)
    return { status: 'U', fingerprint, reason: 'unknown key', detail: `key ${fingerprint} is not in allowed_signers` };
  const time = opts.time ?? new Date();
  let why: SignatureStatus | undefined;
  for (const t of candidates) {
    const signer = t.principals[0];
    if (t.namespaces && !matchPatternList(namespace, t.namespaces)) {
      why ??= {
        status: 'U',
        signer,
        fingerprint,
        reason: 'key not allowed for namespace',
        detail: `allowed_signers line ${t.line} limits ${signer} to namespaces ${t.namespaces.join(',')}`,
      };
    } else if (t.validBefore && time > t.validBefore) {
      why ??= {
        status: 'U',
        signer,
        fingerprint,
        reason: 'expired key',
        detail: `key of ${signer} is valid before ${t.validBefore.toISOString()}; checked at ${time.toISOString()}`,
      };
    } else if (t.validAfter && time < t.validAfter) {
      why ??= {
        status: 'U',
        signer,
        fingerprint,
        reason: 'key not yet valid',
        detail: `key of ${signer} is valid after ${t.validAfter.toISOString()}; checked at ${time.toISOString()}`,
      };
    } else {
      return { status: 'G', signer, fingerprint };
    }
  }
  return why!;
}
