// A fault-injecting HTTP proxy: forwards to an origin (s3rver or the folder server) and, for
// requests whose path matches a rule, answers 500/503, drops the connection mid-body, sends the
// body slowly, or lies in Content-Length, or refuses as S3 does a key without the permission (403
// AccessDenied). A rule may be limited to one HTTP method. Each rule fires a bounded number of times.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export type Fault = '500' | '503' | '403' | 'drop-mid-body' | 'slow-body' | 'short-body' | 'long-body';

export interface FaultRule {
  match: RegExp;
  fault: Fault;
  /** Only requests with this method (e.g. 'PUT'); default: any. */
  method?: string;
  /** How many matching requests get the fault (default: all). */
  times?: number;
  /** slow-body: delay between 1 KiB chunks. */
  delayMs?: number;
}

export interface FaultyProxy {
  url: string;
  port: number;
  rules: FaultRule[];
  /** path → requests seen (faulted or not) */
  requests: Map<string, number>;
  faults: number;
  close(): Promise<void>;
}

export async function startFaultyProxy(origin: string): Promise<FaultyProxy> {
  const target = new URL(origin);
  const state: FaultyProxy = { url: '', port: 0, rules: [], requests: new Map(), faults: 0, close: async () => {} };

  const take = (method: string, path: string): FaultRule | undefined => {
    const rule = state.rules.find(
      (r) => r.match.test(path) && (r.method ?? method) === method && (r.times === undefined || r.times > 0),
    );
    if (rule && rule.times !== undefined) rule.times--;
    if (rule) state.faults++;
    return rule;
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    state.requests.set(path, (state.requests.get(path) ?? 0) + 1);
    const rule = take(req.method ?? 'GET', path);
    if (rule?.fault === '500' || rule?.fault === '503') {
      req.resume();
      return void res.writeHead(Number(rule.fault), { 'content-type': 'text/plain' }).end('injected failure');
    }
    if (rule?.fault === '403') {
      req.resume();
      return void res
        .writeHead(403, { 'content-type': 'application/xml' })
        .end(
          '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>',
        );
    }
    // headers are forwarded unchanged (Host included) so S3 signatures still verify at the origin
    const up = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (ures) => {
        const status = ures.statusCode ?? 502;
        const headers = { ...ures.headers };
        if (!rule || status !== 200) {
          res.writeHead(status, headers);
          return void ures.pipe(res);
        }
        const chunks: Buffer[] = [];
        ures.on('data', (c: Buffer) => chunks.push(c));
        ures.on('end', async () => {
          const body = Buffer.concat(chunks);
          const sock = res.socket;
          if (rule.fault === 'drop-mid-body') {
            res.writeHead(200, { ...headers, 'content-length': String(body.length) });
            res.write(body.subarray(0, Math.floor(body.length / 2)));
            setTimeout(() => sock?.destroy(), 20);
          } else if (rule.fault === 'short-body') {
            // announces more bytes than it sends, then closes: the client sees a truncated body
            res.writeHead(200, { ...headers, 'content-length': String(body.length + 100) });
            res.write(body);
            setTimeout(() => sock?.destroy(), 20);
          } else if (rule.fault === 'long-body') {
            // announces fewer bytes than the object has: the client gets a cut-off object
            const cut = Math.max(0, body.length - 100);
            res.writeHead(200, { ...headers, 'content-length': String(cut) });
            res.end(body.subarray(0, cut));
          } else if (rule.fault === 'slow-body') {
            res.writeHead(200, { ...headers, 'content-length': String(body.length) });
            for (let o = 0; o < body.length; o += 1024) {
              if (res.destroyed) return;
              res.write(body.subarray(o, o + 1024));
              await new Promise((r) => setTimeout(r, rule.delayMs ?? 50));
            }
            res.end();
          }
        });
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.port = (server.address() as { port: number }).port;
  state.url = `http://127.0.0.1:${state.port}/`;
  state.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}
