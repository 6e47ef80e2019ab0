// A small static HTTP server over a folder, with ETags and If-None-Match (like a CDN in front of a
// repository). It counts requests per path so tests can prove single-flight and revalidation.
import { createServer, type Server } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, normalize } from 'node:path';

export interface HttpFolderServer {
  url: string;
  port: number;
  /** path → number of GET/HEAD requests */
  requests: Map<string, number>;
  /** path → number of 304 answers */
  notModified: Map<string, number>;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** A redirect (302 with this Location) for a request path, instead of the file. */
  redirect?: (path: string) => string | undefined;
}

export async function serveFolder(root: string, options: ServeOptions = {}): Promise<HttpFolderServer> {
  const requests = new Map<string, number>();
  const notModified = new Map<string, number>();
  const server: Server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.set(path, (requests.get(path) ?? 0) + 1);
    const location = options.redirect?.(path);
    if (location !== undefined) return void res.writeHead(302, { location }).end();
    const file = normalize(join(root, path));
    if (!file.startsWith(root)) return void res.writeHead(403).end();
    const st = await stat(file).catch(() => null);
    if (!st?.isFile()) return void res.writeHead(404).end('not found');
    const etag = `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}-${st.ino.toString(16)}"`;
    if (req.headers['if-none-match'] === etag) {
      notModified.set(path, (notModified.get(path) ?? 0) + 1);
      return void res.writeHead(304, { etag }).end();
    }
    res.writeHead(200, { 'content-length': st.size, etag, 'content-type': 'application/octet-stream' });
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    requests,
    notModified,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
