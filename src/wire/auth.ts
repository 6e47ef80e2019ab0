/**
 * Password authentication: cleartext, md5 and SCRAM-SHA-256 (RFC 5802 / RFC 7677) against stored
 * verifiers. Passwords are never stored: a user holds a SCRAM verifier
 * (`SCRAM-SHA-256$<iter>:<salt>$<StoredKey>:<ServerKey>`, PostgreSQL's own format) or an md5 hash
 * (`md5` + md5(password + user)). Each authenticator is a small state machine driven by the
 * client's password messages.
 */
import { createHash, createHmac, pbkdf2, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { SqlError, SQLSTATE } from '../errors.js';
import * as be from './backend.js';
import type { Writer } from './writer.js';

export type AuthMethod = 'trust' | 'password' | 'md5' | 'scram-sha-256';

export interface ScramVerifier {
  iterations: number;
  salt: Buffer;
  storedKey: Buffer;
  serverKey: Buffer;
}

/** Parse `SCRAM-SHA-256$4096:<salt b64>$<StoredKey b64>:<ServerKey b64>`. */
export function parseScramVerifier(s: string): ScramVerifier | null {
  const m = /^SCRAM-SHA-256\$(\d+):([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+):([A-Za-z0-9+/=]+)$/.exec(s);
  if (!m) return null;
  return {
    iterations: Number(m[1]),
    salt: Buffer.from(m[2]!, 'base64'),
    storedKey: Buffer.from(m[3]!, 'base64'),
    serverKey: Buffer.from(m[4]!, 'base64'),
  };
}

const hmac = (key: Buffer, data: string | Buffer) => createHmac('sha256', key).update(data).digest();
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest();

/** Make a verifier from a password (for `fdl hash-password` and tests). */
export function makeScramVerifier(password: string, iterations = 4096, salt = randomBytes(16)): string {
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, iterations, 32, 'sha256');
  const storedKey = sha256(hmac(salted, 'Client Key'));
  const serverKey = hmac(salted, 'Server Key');
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

const pbkdf2Async = promisify(pbkdf2);

/**
 * Cleartext passwords hashed at once. libuv's pool (8 threads, cli/threadpool.ts) also runs
 * DuckDB's prepares and fetches: unauthenticated clients must never hold all of it.
 */
const HASH_SLOTS = 2;
let hashing = 0;
const hashQueue: (() => void)[] = [];

async function hashPassword(password: string, salt: Buffer, iterations: number): Promise<Buffer> {
  if (hashing >= HASH_SLOTS) await new Promise<void>((r) => hashQueue.push(r));
  else hashing++;
  try {
    return await pbkdf2Async(password, salt, iterations, 32, 'sha256');
  } finally {
    // The slot passes straight to the next waiter, if any.
    const next = hashQueue.shift();
    if (next) next();
    else hashing--;
  }
}

/**
 * A cleartext password against what is on file. PBKDF2 runs on libuv's pool, never on the event
 * loop; a user without a verifier is checked against a decoy of the same cost, so the answer
 * takes as long whether the name exists or not.
 */
async function verifyPasswordAgainst(
  stored: string | undefined,
  user: string,
  password: string,
  decoyIterations: number,
): Promise<boolean> {
  if (stored && /^md5[0-9a-f]{32}$/.test(stored)) {
    const h =
      'md5' +
      createHash('md5')
        .update(password + user)
        .digest('hex');
    return timingSafeEqual(Buffer.from(h), Buffer.from(stored));
  }
  const scram = (stored && parseScramVerifier(stored)) || null;
  const v = scram ?? decoyVerifier(user, decoyIterations);
  const salted = await hashPassword(password.normalize('NFKC'), v.salt, v.iterations);
  const storedKey = sha256(hmac(salted, 'Client Key'));
  return timingSafeEqual(storedKey, v.storedKey) && scram !== null;
}

/**
 * What an unknown (or md5-only, under SCRAM) user is challenged with: a salt fixed per name (the
 * same answer each time, as for a real user) and the iteration count real users have, so neither
 * the challenge nor the time taken tells whether the name exists.
 */
function decoyVerifier(user: string, iterations: number): ScramVerifier {
  return {
    iterations,
    salt: createHash('sha256').update(`fdl-mock-salt:${user}`).digest().subarray(0, 16),
    storedKey: randomBytes(32),
    serverKey: randomBytes(32),
  };
}

const wrongPassword = (user: string) =>
  new SqlError(SQLSTATE.invalidPassword, `password authentication failed for user "${user}"`);

export interface Authenticator {
  /** Send the first challenge (nothing for trust). Returns true when already authenticated. */
  start(w: Writer): boolean;
  /** Handle one password message; true when authentication succeeded. Throws 28P01 on failure. */
  step(data: Buffer, w: Writer): boolean | Promise<boolean>;
}

/**
 * `stored` is undefined for unknown users: the exchange still runs, against a decoy verifier of
 * `decoyIterations` (those of the configured users), so neither timing nor challenge reveals it.
 */
export function authenticator(
  method: AuthMethod,
  user: string,
  stored: string | undefined,
  decoyIterations = 4096,
): Authenticator {
  switch (method) {
    case 'trust':
      return { start: () => true, step: () => true };
    case 'password':
      return {
        start(w) {
          be.authenticationCleartext(w);
          return false;
        },
        async step(data) {
          const password = data.subarray(0, data.indexOf(0) < 0 ? data.length : data.indexOf(0)).toString('utf8');
          if (!(await verifyPasswordAgainst(stored, user, password, decoyIterations))) throw wrongPassword(user);
          return true;
        },
      };
    case 'md5': {
      // md5 needs an md5 hash on file; users with a SCRAM verifier get SCRAM, as PostgreSQL does.
      if (stored && parseScramVerifier(stored)) return scram(user, stored, decoyIterations);
      const salt = randomBytes(4);
      return {
        start(w) {
          be.authenticationMd5(w, salt);
          return false;
        },
        step(data) {
          const got = data.subarray(0, data.indexOf(0) < 0 ? data.length : data.indexOf(0)).toString('utf8');
          if (!stored || !/^md5[0-9a-f]{32}$/.test(stored)) throw wrongPassword(user);
          const expected =
            'md5' +
            createHash('md5')
              .update(Buffer.concat([Buffer.from(stored.slice(3)), salt]))
              .digest('hex');
          if (got.length !== expected.length || !timingSafeEqual(Buffer.from(got), Buffer.from(expected)))
            throw wrongPassword(user);
          return true;
        },
      };
    }
    case 'scram-sha-256':
      return scram(user, stored, decoyIterations);
  }
}

function scram(user: string, stored: string | undefined, decoyIterations: number): Authenticator {
  // Unknown users and md5-only users get a decoy verifier: the exchange fails at the proof.
  const verifier = (stored && parseScramVerifier(stored)) || decoyVerifier(user, decoyIterations);
  let state: 'initial' | 'final' | 'done' = 'initial';
  let clientFirstBare = '';
  let serverFirst = '';
  let nonce = '';
  const bad = (msg: string) => new SqlError(SQLSTATE.protocolViolation, `malformed SCRAM message: ${msg}`);
  return {
    start(w) {
      be.authenticationSasl(w, ['SCRAM-SHA-256']);
      return false;
    },
    step(data, w) {
      if (state === 'initial') {
        // SASLInitialResponse: mechanism\0 int32 length, client-first-message
        const z = data.indexOf(0);
        if (z < 0) throw bad('no mechanism');
        const mech = data.subarray(0, z).toString('utf8');
        if (mech !== 'SCRAM-SHA-256')
          throw new SqlError(SQLSTATE.protocolViolation, `unsupported SASL mechanism "${mech}"`);
        if (data.length < z + 5) throw bad('truncated initial response');
        const len = data.readInt32BE(z + 1);
        const first = data.subarray(z + 5, z + 5 + Math.max(0, len)).toString('utf8');
        const m = /^([ny]),(?:a=[^,]*)?,(n=[^,]*,r=([^,]+)(?:,.*)?)$/.exec(first);
        if (!m) throw bad('client-first-message');
        clientFirstBare = m[2]!;
        nonce = m[3]! + randomBytes(18).toString('base64');
        serverFirst = `r=${nonce},s=${verifier.salt.toString('base64')},i=${verifier.iterations}`;
        be.authenticationSaslContinue(w, serverFirst);
        state = 'final';
        return false;
      }
      if (state === 'final') {
        const final = data.toString('utf8');
        const m = /^(c=([^,]*),r=([^,]+)(?:,[^p][^,]*)*),p=([A-Za-z0-9+/=]+)$/.exec(final);
        if (!m) throw bad('client-final-message');
        if (m[3] !== nonce) throw bad('nonce mismatch');
        const authMessage = `${clientFirstBare},${serverFirst},${m[1]}`;
        const proof = Buffer.from(m[4]!, 'base64');
        const clientSignature = hmac(verifier.storedKey, authMessage);
        if (proof.length !== clientSignature.length) throw wrongPassword(user);
        const clientKey = Buffer.alloc(proof.length);
        for (let i = 0; i < proof.length; i++) clientKey[i] = proof[i]! ^ clientSignature[i]!;
        if (!stored || !timingSafeEqual(sha256(clientKey), verifier.storedKey)) throw wrongPassword(user);
        be.authenticationSaslFinal(w, `v=${hmac(verifier.serverKey, authMessage).toString('base64')}`);
        state = 'done';
        return true;
      }
      throw bad('unexpected message after authentication');
    },
  };
}
