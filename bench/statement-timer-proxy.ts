/**
 * A TCP proxy in front of a PostgreSQL server (the gateway or PostgreSQL itself) that times every
 * request cycle a real client sends: from the first frontend message after ReadyForQuery to the next
 * ReadyForQuery. The same proxy in front of both servers makes their figures comparable, whatever
 * protocol (simple, extended, pipelined) the client uses. Clients must not ask for TLS.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TimedStatement {
  /** Text of the Query or Parse message that started the cycle ('' for Bind/Execute of a named statement). */
  sql: string;
  ms: number;
}

export interface TimerProxy {
  port: number;
  /** Cycles recorded since the last take(), after each connection's start-up. */
  take(): TimedStatement[];
  close(): Promise<void>;
}

/** Splits a stream of typed messages (type byte + int32 length) and calls `on` for each. */
function messageSplitter(on: (type: number, body: Buffer) => void, untypedFirst: boolean) {
  let buf: Buffer = Buffer.alloc(0);
  let untyped = untypedFirst;
  return (chunk: Buffer) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    for (;;) {
      if (untyped) {
        if (buf.length < 4) return;
        const len = buf.readInt32BE(0);
        if (buf.length < len) return;
        untyped = false;
        on(0, buf.subarray(4, len));
        buf = buf.subarray(len);
        continue;
      }
      if (buf.length < 5) return;
      const len = buf.readInt32BE(1);
      if (buf.length < len + 1) return;
      on(buf[0]!, buf.subarray(5, len + 1));
      buf = buf.subarray(len + 1);
    }
  };
}

function cstring(b: Buffer, from: number): [string, number] {
  const end = b.indexOf(0, from);
  return [b.toString('utf8', from, end), end + 1];
}

export async function startTimerProxy(target: { host: string; port: number }): Promise<TimerProxy> {
  let recorded: TimedStatement[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection(target);
    sockets.add(client).add(upstream);
    let ready = false; // after the first ReadyForQuery (start-up and authentication not timed)
    let started: number | null = null;
    let sql = '';
    const named = new Map<string, string>();
    client.on(
      'data',
      messageSplitter((type, body) => {
        if (type === 0 || !ready) return;
        if (started === null) {
          started = performance.now();
          sql = '';
        }
        if (type === 0x51 /* Q */) sql ||= cstring(body, 0)[0];
        if (type === 0x50 /* P */) {
          const [name, at] = cstring(body, 0);
          const text = cstring(body, at)[0];
          if (name) named.set(name, text);
          sql ||= text;
        }
        if (type === 0x42 /* B */ && !sql) sql = named.get(cstring(body, cstring(body, 0)[1])[0]) ?? '';
      }, true),
    );
    upstream.on(
      'data',
      messageSplitter((type) => {
        if (type !== 0x5a /* Z */) return;
        if (ready && started !== null) recorded.push({ sql, ms: performance.now() - started });
        ready = true;
        started = null;
      }, false),
    );
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    take: () => {
      const out = recorded;
      recorded = [];
      return out;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
