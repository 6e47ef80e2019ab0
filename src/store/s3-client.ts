/**
 * The one S3 client set-up, shared by the gateway's reading store (s3-store.ts) and the publisher's
 * write target (host/target.ts): region, endpoint and path style from options or the environment,
 * checksums only where S3 requires them (MinIO, s3rver and older gateways reject the newer
 * defaults), the SDK's own retries off (every caller retries the same bounded way: retry.ts), and
 * the TLS trust of the process.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { SqlError } from '../errors.js';
import { isConnectionError } from './retry.js';
import { s3RequestHandler } from './tls-trust.js';

export interface S3ClientOptions {
  endpoint?: string;
  region?: string;
  forcePathStyle?: boolean;
  /** For tests: explicit credentials instead of the standard chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export function createS3Client(options: S3ClientOptions = {}): S3Client {
  return new S3Client({
    region: options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
    endpoint: options.endpoint ?? process.env.AWS_ENDPOINT_URL ?? undefined,
    forcePathStyle: options.forcePathStyle ?? process.env.FDL_S3_FORCE_PATH_STYLE === '1',
    credentials: options.credentials,
    maxAttempts: 1,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: s3RequestHandler(),
  });
}

/** s3://bucket/prefix → bucket and prefix (empty, or ending in '/'); null when not an s3:// URL. */
export function parseS3Url(url: string): { bucket: string; prefix: string } | null {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/i.exec(url);
  if (!m) return null;
  const p = m[2]!;
  return { bucket: m[1]!, prefix: p === '' || p.endsWith('/') ? p : `${p}/` };
}

interface AwsError {
  name?: string;
  $metadata?: { httpStatusCode?: number };
  $retryable?: unknown;
}

export const httpStatus = (e: unknown): number | undefined => (e as AwsError)?.$metadata?.httpStatusCode;
export const isAbsent = (e: unknown): boolean =>
  (e as AwsError)?.name === 'NoSuchKey' || (e as AwsError)?.name === 'NotFound' || httpStatus(e) === 404;
/** A conditional write refused: If-None-Match found the key, or If-Match another ETag. */
export const isPreconditionFailed = (e: unknown): boolean =>
  httpStatus(e) === 412 || httpStatus(e) === 409 || (e as AwsError)?.name === 'PreconditionFailed';
/** Worth another attempt: a 5xx, 429 or 408, a broken connection, or what the SDK marks retryable. */
export function isTransientS3(e: unknown): boolean {
  if (e instanceof SqlError) return false;
  const s = httpStatus(e);
  if (s !== undefined && s !== 0) return s >= 500 || s === 429 || s === 408;
  return isConnectionError(e) || (e as AwsError)?.$retryable !== undefined || !(e as AwsError)?.$metadata;
}
