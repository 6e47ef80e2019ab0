/**
 * The operator's HTTP listener (`--http HOST:PORT`, off by default): /healthz (the process runs),
 * /readyz (accepting sessions: 503 while starting or draining), /metrics (Prometheus text) and /
 * (the status page). GET and HEAD only; nothing here changes the gateway.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** Sockets open at once; past it the longest idle one makes room (a health check must get through). */
const MAX_SOCKETS = 64;

export type Readiness = 'starting' | 'ready' | 'draining';

/**
 * `ready`, or why the engine cannot take more work now (engine/engine-calls.ts): every slot held,
 * or calls stuck past their statement's stop plus the grace (wedged until they return).
 */
export type EngineLoad = {
  saturated: boolean;
  running: number;
  slots: number;
  stuck?: number;
  stuckGraceMs?: number;
  /** Versions' opens running past the grace (engine-calls.ts watchedEngineWork). */
  stuckOpens?: number;
};

export interface HttpHandlers {
  readiness(): Readiness;
  /** The engine's session calls now: /readyz turns 503 `wedged` while a call is stuck, `saturated` while every slot is held. */
  engineLoad?(): EngineLoad;
  metrics(): Promise<{ contentType: string; body: string }>;
  statusPage(): Promise<string>;
  log: { warn(o: object, msg?: string): void };
}

export class ServiceHttp {
  private constructor(
    private readonly server: http.Server,
    readonly address: { host: string; port: number },
  ) {}

  static async listen(host: string, port: number, h: HttpHandlers): Promise<ServiceHttp> {
    /** Open sockets, oldest first, with their requests in flight. */
    const inFlight = new Map<Socket, number>();
    // Idle sockets are expired within a second or two of their deadline, not at Node's 30 s sweep.
    const server = http.createServer({ connectionsCheckingInterval: 1000 }, (req, res) => {
      const socket = req.socket;
      inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
      res.once('close', () => {
        const n = inFlight.get(socket);
        if (n !== undefined) inFlight.set(socket, n - 1);
      });
      void handle(req, res, h);
    });
    // Slow or idle clients must not hold sockets open (a scraper every few seconds is the norm).
    server.requestTimeout = 30_000;
    server.headersTimeout = 10_000;
    server.keepAliveTimeout = 5_000;
    server.maxHeadersCount = 50;
    // Scrapers, health checks and a few people: a small ceiling keeps a flood off the gateway. Not
    // server.maxConnections, which turns the newcomer away (a health check behind 64 idle
    // sockets): the longest open socket without a request in flight is closed for it instead.
    server.on('connection', (socket: Socket) => {
      if (inFlight.size >= MAX_SOCKETS) {
        const idle = [...inFlight].find(([, n]) => n === 0)?.[0];
        if (!idle) {
          socket.destroy();
          return;
        }
        inFlight.delete(idle);
        idle.destroy();
      }
      inFlight.set(socket, 0);
      socket.once('close', () => inFlight.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const a = server.address() as AddressInfo;
    return new ServiceHttp(server, { host, port: a.port });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse, h: HttpHandlers): Promise<void> {
  const send = (code: number, type: string, body: string) => {
    res.writeHead(code, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    return send(405, 'text/plain; charset=utf-8', 'method not allowed\n');
  }
  const path = (req.url ?? '/').split('?')[0];
  try {
    switch (path) {
      case '/healthz':
        return send(200, 'text/plain; charset=utf-8', 'ok\n');
      case '/readyz': {
        const r = h.readiness();
        const load = h.engineLoad?.();
        if (r === 'ready' && load?.stuck)
          return send(
            503,
            'text/plain; charset=utf-8',
            `wedged: ${load.stuck} engine calls still running ${load.stuckGraceMs ?? 0} ms after their statements were stopped; drain and restart this process\n`,
          );
        if (r === 'ready' && load?.stuckOpens)
          return send(
            503,
            'text/plain; charset=utf-8',
            `wedged: ${load.stuckOpens} version opens still running after ${load.stuckGraceMs ?? 0} ms (a file of the store does not answer); drain and restart this process\n`,
          );
        if (r === 'ready' && load?.saturated)
          return send(
            503,
            'text/plain; charset=utf-8',
            `saturated: ${load.running} of ${load.slots} engine calls running\n`,
          );
        return send(r === 'ready' ? 200 : 503, 'text/plain; charset=utf-8', `${r}\n`);
      }
      case '/metrics': {
        const m = await h.metrics();
        return send(200, m.contentType, m.body);
      }
      case '/': {
        const page = await h.statusPage();
        res.setHeader('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'");
        return send(200, 'text/html; charset=utf-8', page);
      }
      default:
        return send(404, 'text/plain; charset=utf-8', 'not found\n');
    }
  } catch (e) {
    h.log.warn({ event: 'http_error', path, err: (e as Error).message });
    if (!res.headersSent) send(500, 'text/plain; charset=utf-8', 'internal error\n');
    else res.destroy();
  }
}
