// A real S3 API (s3rver) on a free port with one bucket, filled from a local folder.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

export const S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
/** The environment a gateway or `fdl` run needs to sign its requests to s3rver. */
export const S3_ENV = {
  AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
};
/** The gateway's flags for an S3 endpoint as s3rver serves it (any region, path-style buckets). */
export const s3Flags = (endpoint: string): string[] => [
  '--s3-endpoint',
  endpoint,
  '--s3-region',
  'us-east-1',
  '--s3-force-path-style',
];

export interface S3Server {
  endpoint: string;
  bucket: string;
  client: S3Client;
  upload(folder: string, prefix: string): Promise<number>;
  close(): Promise<void>;
}

export async function startS3(bucket = 'lake'): Promise<S3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'fdl-s3rver-'));
  // s3rver signs list continuation tokens with DES, which OpenSSL 3 only offers through its
  // legacy provider: run it in its own node process with that provider enabled.
  const script = `
    const S3rver = require(${JSON.stringify(createRequire(import.meta.url).resolve('s3rver'))});
    const s = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: ${JSON.stringify(directory)}, configureBuckets: [{ name: ${JSON.stringify(bucket)} }] });
    s.run().then((a) => console.log('port ' + a.port));
    process.on('SIGTERM', () => s.close().then(() => process.exit(0)));`;
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', script], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (l) => {
      const m = /^port (\d+)$/.exec(l);
      if (m) resolve(Number(m[1]));
    });
  });
  const server = {
    // s3rver's own close waits for every open connection (a client's idle keep-alive sockets
    // included): a test's cleanup never hangs on it, SIGKILL follows after a grace period.
    close: () =>
      new Promise<void>((r) => {
        if (child.exitCode !== null || child.signalCode !== null) return r();
        child.removeAllListeners('exit');
        const kill = setTimeout(() => child.kill('SIGKILL'), 2000);
        child.once('exit', () => {
          clearTimeout(kill);
          r();
        });
        child.kill('SIGTERM');
      }),
  };
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: S3_CREDENTIALS,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    endpoint,
    bucket,
    client,
    /** Uploads every file under `folder` to `prefix`; returns the number of objects. */
    async upload(folder: string, prefix: string): Promise<number> {
      let n = 0;
      const walk = async (abs: string, rel: string): Promise<void> => {
        for (const name of await readdir(abs)) {
          const p = join(abs, name);
          const r = rel ? `${rel}/${name}` : name;
          if ((await stat(p)).isDirectory()) await walk(p, r);
          else {
            await client.send(new PutObjectCommand({ Bucket: bucket, Key: prefix + r, Body: await readFile(p) }));
            n++;
          }
        }
      };
      await walk(folder, '');
      return n;
    },
    async close() {
      client.destroy();
      await server.close();
    },
  };
}
