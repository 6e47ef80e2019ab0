/**
 * Trusting a private CA for https:// repositories and S3 endpoints (`--ca-file`, `caFile`,
 * FDL_CA_FILE): its certificates are added to Node's bundled roots for every fetch (undici's
 * global dispatcher) and for the S3 clients made afterwards. And naming a TLS failure: fetch says
 * only "fetch failed"; the certificate error is in its cause.
 */
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { Agent as HttpsAgent } from 'node:https';
import { rootCertificates } from 'node:tls';
import { Agent, setGlobalDispatcher } from 'undici';

let trusted: string[] | null = null;

/** Reads a PEM bundle; throws naming the file when it holds no certificate. */
export function trustCaFile(path: string): void {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`CA file ${path}: ${(e as Error).message}`);
  }
  const certs = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (certs.length === 0) throw new Error(`CA file ${path} holds no PEM certificate`);
  for (const c of certs) {
    try {
      new X509Certificate(c);
    } catch (e) {
      throw new Error(`CA file ${path}: a certificate does not parse: ${(e as Error).message}`);
    }
  }
  trusted = [...rootCertificates, ...certs];
  setGlobalDispatcher(new Agent({ connect: { ca: trusted } }));
}

/** For S3 clients: an HTTPS agent trusting the CA file too, or undefined (the SDK's default). */
export function s3RequestHandler(): { httpsAgent: HttpsAgent } | undefined {
  return trusted ? { httpsAgent: new HttpsAgent({ ca: trusted, keepAlive: true }) } : undefined;
}

const TLS_CODE = /^(CERT_|UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO|ERR_TLS_|ERR_SSL_|HOSTNAME_MISMATCH|ERR_CERT)/;

/** The TLS failure inside `e` (its cause chain), said plainly with what to do; null when none. */
export function tlsProblem(e: unknown): string | null {
  for (
    let cur = e as { code?: string; message?: string; cause?: unknown } | undefined, depth = 0;
    cur && depth < 5;
    cur = cur.cause as typeof cur, depth++
  ) {
    if (typeof cur.code === 'string' && TLS_CODE.test(cur.code)) {
      return `TLS: ${cur.message ?? cur.code} (${cur.code}); if the server uses a private CA, trust it with --ca-file (or caFile, FDL_CA_FILE)`;
    }
  }
  return null;
}

/** A command's error as one line: its TLS failure named (tlsProblem), else its message. */
export function errorLine(e: unknown): string {
  return tlsProblem(e) ?? String((e as Error)?.message ?? e);
}
