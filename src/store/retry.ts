/**
 * Bounded retries with exponential backoff for transient failures. Only the caller knows
 * what is transient, so it passes a classifier; the last error is rethrown as it was when it is
 * already a SqlError (a mismatch stays XX001), otherwise wrapped as an I/O error (58030).
 */
import { isSqlError } from '../errors.js';
import { ioError, type StoreLimits } from './store.js';
import { tlsProblem } from './tls-trust.js';

/** Thrown by store code for failures worth another attempt (truncated body, 5xx, timeout). */
export class TransientError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'TransientError';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function withRetry<T>(
  what: string,
  limits: StoreLimits,
  isTransient: (e: unknown) => boolean,
  attempt: (n: number) => Promise<T>,
): Promise<T> {
  let last: unknown;
  for (let n = 1; n <= Math.max(1, limits.attempts); n++) {
    try {
      return await attempt(n);
    } catch (e) {
      last = e;
      if (!isTransient(e) || n === limits.attempts) break;
      // jitter keeps many sessions from retrying in lockstep against a struggling server
      await sleep(limits.backoffMs * 2 ** (n - 1) * (0.75 + Math.random() * 0.5));
    }
  }
  if (isSqlError(last)) throw last;
  const tls = tlsProblem(last);
  throw ioError(`${what} failed${tls ? `: ${tls}` : ''}`, tls ? undefined : last);
}

/** Errors from node's sockets and fetch that mean "the connection broke", not "you asked wrong". */
export function isConnectionError(e: unknown): boolean {
  if (e instanceof TransientError) return true;
  if (tlsProblem(e)) return false; // a certificate the client does not trust stays so: no retry
  const err = e as { code?: string; name?: string; cause?: unknown } | null;
  if (!err || typeof err !== 'object') return false;
  if (err.name === 'AbortError' || err.name === 'TimeoutError') return true;
  const code = err.code ?? (err.cause as { code?: string } | undefined)?.code;
  if (
    code &&
    /^(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|EAI_AGAIN|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|UND_ERR_.*|ERR_STREAM_PREMATURE_CLOSE)$/.test(
      code,
    )
  )
    return true;
  // fetch reports a body cut short as TypeError('terminated') with the socket error as cause
  return err.name === 'TypeError' && /terminated|fetch failed|other side closed/i.test(String((e as Error).message));
}
