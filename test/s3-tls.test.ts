/**
 * S3 over HTTPS with a private CA: s3rver speaks only HTTP, so a TLS-terminating front (a node
 * https server with a certificate from an openssl-made CA) forwards every request to it unchanged
 * (SigV4 signs the Host header the client sent, which the front keeps). `fdl push` to the S3
 * endpoint and `fdl serve` of the S3 copy trust the CA with --ca-file; without it, or with another
 * CA, the TLS failure is named and nothing is written.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { CLI, FIXTURES, startGateway, client } from './support/gateway.js';
import { S3_CREDENTIALS, startS3, type S3Server } from './support/s3-server.js';
import { bucketBytes } from './support/tree.js';

const run = promisify(execFile);

describe('S3 over HTTPS with a private CA (--ca-file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fdl-s3-tls-'));
  let s3: S3Server;
  let front: Server;
  let endpoint: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    const ssl = (args: string[]) => run('openssl', args, { cwd: dir });
    const ca = async (name: string) =>
      ssl([
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.pem`,
        '-days',
        '2',
        '-subj',
        `/CN=${name}`,
      ]);
    await ca('ca');
    await ca('other-ca');
    await ssl([
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      '/CN=127.0.0.1',
    ]);
    writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
    await ssl([
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      '2',
      '-extfile',
      'san.ext',
    ]);
    s3 = await startS3('lake');
    const upstream = new URL(s3.endpoint);
    front = createServer(
      { key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) },
      (req, res) => {
        const up = request(
          { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
          (r) => {
            res.writeHead(r.statusCode ?? 502, r.headers);
            r.pipe(res);
          },
        );
        up.on('error', (e) => res.writeHead(502).end(String(e)));
        req.pipe(up);
      },
    );
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    endpoint = `https://127.0.0.1:${(front.address() as { port: number }).port}`;
    env = {
      ...process.env,
      AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
      AWS_ENDPOINT_URL: endpoint,
      AWS_REGION: 'us-east-1',
      FDL_S3_FORCE_PATH_STYLE: '1',
    };
    delete env.FDL_CA_FILE;
    delete env.NODE_EXTRA_CA_CERTS;
    mkdirSync(join(dir, 'cache'));
  });
  after(async () => {
    front?.closeAllConnections();
    await new Promise<void>((r) => (front ? front.close(() => r()) : r()));
    await s3?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const push = (...extra: string[]) =>
    run(process.execPath, [CLI, 'push', ...extra, join(FIXTURES, 'repos', 'basic'), 's3://lake/tls/'], { env }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );

  it('without the CA, or with another CA, the TLS failure is named and nothing is written; with --ca-file the push lands and fdl serve reads it', async () => {
    const none = await push();
    assert.equal(none.code, 1);
    assert.match(
      none.stderr,
      /TLS: .*\((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\); .*--ca-file/,
    );
    const wrong = await push('--ca-file', join(dir, 'other-ca.pem'));
    assert.equal(wrong.code, 1);
    assert.match(
      wrong.stderr,
      /TLS: .*\((UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\); .*--ca-file/,
    );
    assert.deepEqual(await bucketBytes(s3.client, 'lake', 'tls/'), [], 'nothing written through an untrusted endpoint');

    const ok = await push('--ca-file', join(dir, 'ca.pem'));
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^pushed 5 version\(s\)/);
    const main = readFileSync(join(FIXTURES, 'repos', 'basic', 'refs', 'heads', 'main'), 'utf8').trim();

    const gw = await startGateway(
      [
        '--repo',
        'b=s3://lake/tls/',
        '--s3-endpoint',
        endpoint,
        '--s3-region',
        'us-east-1',
        '--s3-force-path-style',
        '--ca-file',
        join(dir, 'ca.pem'),
        '--cache-dir',
        join(dir, 'cache'),
      ],
      { env },
    );
    try {
      const c = await client(gw, 'b');
      try {
        assert.equal((await c.query('show fdl.version')).rows[0]['fdl.version'], main);
        assert.ok(Number((await c.query('select count(*) AS n from sales.orders')).rows[0].n) > 0);
      } finally {
        await c.end();
      }
    } finally {
      await gw.stop();
    }
  });
});
