/**
 * A front for s3rver that enforces conditional writes as S3 does (s3rver ignores them): a PUT with
 * `If-None-Match: *` fails with 412 when the key exists, a PUT with `If-Match: <etag>` when the
 * key's ETag differs or the key is absent. Check and write happen under one lock per key, so two
 * racing writers with the same precondition cannot both win. Everything else passes through
 * untouched (requests are forwarded with their own signed headers).
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import type { S3Server } from './s3-server.js';

export interface ConditionalS3 {
  /** The endpoint to give S3 clients instead of s3rver's. */
  endpoint: string;
  /** Conditional PUTs refused with 412, by key (path-style: /bucket/key). */
  readonly refused: Map<string, number>;
  /**
   * Hold conditional PUTs to keys ending in `suffix` until `count` of them have arrived, then let
   * them through in arrival order: every racer has read the key before any of them writes.
   */
  gate(suffix: string, count: number): void;
  close(): Promise<void>;
}

const unquote = (etag: string) => etag.trim().replace(/^W\//, '').replace(/^"|"$/g, '');

export async function startConditionalS3(s3: S3Server): Promise<ConditionalS3> {
  const upstream = new URL(s3.endpoint);
  const locks = new Map<string, Promise<void>>();
  const refused = new Map<string, number>();
  let gate: { suffix: string; count: number; waiting: (() => void)[] } | null = null;

  /** The key's current ETag, or null when it does not exist (path-style: /bucket/key). */
  const etagOf = async (path: string): Promise<string | null> => {
    const [bucket, ...rest] = path.replace(/^\//, '').split('/');
    try {
      const head = await s3.client.send(new HeadObjectCommand({ Bucket: bucket, Key: rest.join('/') }));
      return head.ETag ? unquote(head.ETag) : '';
    } catch (e) {
      if ((e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return null;
      throw e;
    }
  };

  const forward = (req: IncomingMessage, res: ServerResponse): Promise<void> =>
    new Promise((resolve) => {
      const up = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
          r.on('end', resolve);
          r.on('error', resolve);
        },
      );
      up.on('error', (e) => {
        res.writeHead(502).end(String(e));
        resolve();
      });
      req.pipe(up);
    });

  const preconditionFailed = (res: ServerResponse, key: string, condition: string) => {
    refused.set(key, (refused.get(key) ?? 0) + 1);
    res.writeHead(412, { 'content-type': 'application/xml', connection: 'close' });
    res.end(
      `<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Condition>${condition}</Condition></Error>`,
    );
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const ifMatch = req.headers['if-match'];
    const ifNoneMatch = req.headers['if-none-match'];
    if (req.method !== 'PUT' || (ifMatch === undefined && ifNoneMatch === undefined)) return forward(req, res);
    const key = decodeURIComponent((req.url ?? '').split('?')[0]!);
    req.pause();
    if (gate && key.endsWith(gate.suffix)) {
      const g = gate;
      await new Promise<void>((r) => {
        g.waiting.push(r);
        if (g.waiting.length >= g.count) {
          gate = null;
          for (const w of g.waiting) w();
        }
      });
    }
    // One conditional write per key at a time: check and write are one step.
    const before = locks.get(key) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((r) => (done = r));
    const turn = before.then(() => mine);
    locks.set(key, turn);
    await before;
    try {
      const current = await etagOf(key);
      if (ifNoneMatch !== undefined && ifNoneMatch.trim() === '*' && current !== null)
        return preconditionFailed(res, key, 'If-None-Match');
      if (ifMatch !== undefined && (current === null || (ifMatch.trim() !== '*' && unquote(ifMatch) !== current)))
        return preconditionFailed(res, key, 'If-Match');
      await forward(req, res);
    } finally {
      done();
      if (locks.get(key) === turn) locks.delete(key);
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(e));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    refused,
    gate: (suffix, count) => (gate = { suffix, count, waiting: [] }),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
