/**
 * An HTTP reverse proxy in front of an object store that counts the response bytes it relays,
 * per request path: an independent witness of what the gateway fetched (not its own counters).
 * Optional per-request latency stands in for a distant store.
 */
import { createServer, request, type Server } from 'node:http';

export interface CountingProxy {
  url: string;
  /** Body bytes relayed for GET requests, by path (query string removed). */
  bytesByPath: Map<string, number>;
  /** Total GET body bytes whose path passes `filter`. */
  bytes(filter?: (path: string) => boolean): number;
  /** GET requests that asked for a byte range (Range header), since the last reset. */
  rangeRequests(): number;
  reset(): void;
  close(): Promise<void>;
}

/**
 * `latencyMs`: added before each request is forwarded. `bytesPerSecond`: a cap per response (one
 * connection to a distant store is slower than its total bandwidth; parallel requests add up).
 */
export async function startCountingProxy(
  target: string,
  opts: { latencyMs?: number; bytesPerSecond?: number } = {},
): Promise<CountingProxy> {
  const to = new URL(target);
  const bytesByPath = new Map<string, number>();
  let ranged = 0;
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.headers.range) ranged++;
    const forward = () => {
      const up = request(
        { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          const path = decodeURIComponent((req.url ?? '').split('?')[0]!);
          upRes.on('data', (chunk: Buffer) => {
            if (req.method === 'GET') bytesByPath.set(path, (bytesByPath.get(path) ?? 0) + chunk.length);
          });
          if (!opts.bytesPerSecond) {
            upRes.pipe(res);
            return;
          }
          // relayed by hand (pipe would resume a paused source whenever the client drains)
          const rate = opts.bytesPerSecond;
          const started = Date.now();
          let sent = 0;
          upRes.on('data', (chunk: Buffer) => {
            sent += chunk.length;
            const drained = res.write(chunk);
            const wait = started + (sent / rate) * 1000 - Date.now();
            if (wait > 0 || !drained) {
              upRes.pause();
              let pending = (wait > 0 ? 1 : 0) + (drained ? 0 : 1);
              const go = () => {
                if (--pending === 0) upRes.resume();
              };
              if (wait > 0) setTimeout(go, wait);
              if (!drained) res.once('drain', go);
            }
          });
          upRes.on('end', () => res.end());
          upRes.on('error', () => res.destroy());
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    };
    if (opts.latencyMs) setTimeout(forward, opts.latencyMs);
    else forward();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${addr.port}`,
    bytesByPath,
    bytes: (filter = () => true) => [...bytesByPath].reduce((n, [p, b]) => n + (filter(p) ? b : 0), 0),
    rangeRequests: () => ranged,
    reset: () => {
      bytesByPath.clear();
      ranged = 0;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
