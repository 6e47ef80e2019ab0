/**
 * PROXY protocol v1 and v2 (HAProxy's `send-proxy` / `send-proxy-v2`): a load balancer prefixes
 * each TCP connection with a header naming the real client. The header is read before anything
 * else on the socket; when the gateway is configured to expect it, a connection without one is
 * refused (a client must never be able to claim an address by sending the header itself, so the
 * listener must only be reachable through the balancer — see docs/operations.md).
 */
import { isIP } from 'node:net';

const V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
const V1_PREFIX = Buffer.from('PROXY ', 'latin1');
/** v1 lines are at most 107 bytes with CRLF (spec §2.1). */
const V1_MAX = 107;
/** v2 TLVs HAProxy sends are small; a larger announced length is refused rather than buffered. */
const V2_MAX_BODY = 2048;

export interface ProxiedAddress {
  /** Client address as the balancer saw it; null for LOCAL/UNKNOWN (health checks from the balancer itself). */
  address: string | null;
  port: number | null;
}

export type ProxyParse =
  | { kind: 'incomplete' }
  | { kind: 'error'; message: string }
  | { kind: 'done'; client: ProxiedAddress; consumed: number };

/** Parse a PROXY header at the start of `buf` (which may hold more bytes after it). */
export function parseProxyHeader(buf: Buffer): ProxyParse {
  const sigLen = Math.min(buf.length, V2_SIGNATURE.length);
  if (buf.subarray(0, sigLen).equals(V2_SIGNATURE.subarray(0, sigLen))) {
    if (buf.length < 16) return { kind: 'incomplete' };
    return parseV2(buf);
  }
  const preLen = Math.min(buf.length, V1_PREFIX.length);
  if (buf.subarray(0, preLen).equals(V1_PREFIX.subarray(0, preLen))) {
    const end = buf.indexOf('\r\n', 0, 'latin1');
    if (end < 0)
      return buf.length >= V1_MAX
        ? { kind: 'error', message: 'PROXY v1 header longer than 107 bytes' }
        : { kind: 'incomplete' };
    if (end + 2 > V1_MAX) return { kind: 'error', message: 'PROXY v1 header longer than 107 bytes' };
    return parseV1(buf.subarray(0, end).toString('latin1'), end + 2);
  }
  return { kind: 'error', message: 'expected a PROXY protocol header (the gateway runs with --proxy-protocol)' };
}

function parseV1(line: string, consumed: number): ProxyParse {
  const parts = line.split(' ');
  if (parts[1] === 'UNKNOWN') return { kind: 'done', client: { address: null, port: null }, consumed };
  const [, proto, src, dst, sport, dport] = parts;
  if (parts.length !== 6 || (proto !== 'TCP4' && proto !== 'TCP6'))
    return { kind: 'error', message: 'malformed PROXY v1 header' };
  const family = proto === 'TCP4' ? 4 : 6;
  if (isIP(src!) !== family || isIP(dst!) !== family || !validPort(sport!) || !validPort(dport!)) {
    return { kind: 'error', message: 'malformed PROXY v1 header' };
  }
  return { kind: 'done', client: { address: src!, port: Number(sport) }, consumed };
}

const validPort = (s: string) => /^(0|[1-9]\d{0,4})$/.test(s) && Number(s) <= 65535;

function parseV2(buf: Buffer): ProxyParse {
  const verCmd = buf[12]!;
  if (verCmd >> 4 !== 2) return { kind: 'error', message: 'unsupported PROXY protocol version' };
  const cmd = verCmd & 0x0f;
  const fam = buf[13]!;
  const len = buf.readUInt16BE(14);
  if (len > V2_MAX_BODY) return { kind: 'error', message: 'PROXY v2 header too long' };
  if (buf.length < 16 + len) return { kind: 'incomplete' };
  const consumed = 16 + len;
  if (cmd === 0) return { kind: 'done', client: { address: null, port: null }, consumed }; // LOCAL
  if (cmd !== 1) return { kind: 'error', message: 'unsupported PROXY v2 command' };
  const body = buf.subarray(16, consumed);
  switch (fam) {
    case 0x11: // TCP over IPv4
    case 0x12: // UDP over IPv4
      if (len < 12) return { kind: 'error', message: 'truncated PROXY v2 IPv4 addresses' };
      return {
        kind: 'done',
        client: { address: [...body.subarray(0, 4)].join('.'), port: body.readUInt16BE(8) },
        consumed,
      };
    case 0x21:
    case 0x22: {
      if (len < 36) return { kind: 'error', message: 'truncated PROXY v2 IPv6 addresses' };
      const groups: string[] = [];
      for (let i = 0; i < 16; i += 2) groups.push(body.readUInt16BE(i).toString(16));
      return { kind: 'done', client: { address: compactIPv6(groups), port: body.readUInt16BE(32) }, consumed };
    }
    default: // UNSPEC or UNIX sockets: no address to report
      return { kind: 'done', client: { address: null, port: null }, consumed };
  }
}

/** RFC 5952 text: the longest run of zero groups (two or more) becomes `::`. */
function compactIPv6(groups: string[]): string {
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < groups.length;) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < groups.length && groups[j] === '0') j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

/** Encode a v2 header (tests and the bench speak it as HAProxy would). */
export function encodeProxyV2(src: { address: string; port: number }, dst: { address: string; port: number }): Buffer {
  const v4 = isIP(src.address) === 4;
  const body = Buffer.alloc(v4 ? 12 : 36);
  if (v4) {
    src.address.split('.').forEach((o, i) => (body[i] = Number(o)));
    dst.address.split('.').forEach((o, i) => (body[4 + i] = Number(o)));
    body.writeUInt16BE(src.port, 8);
    body.writeUInt16BE(dst.port, 10);
  } else {
    throw new Error('encodeProxyV2: IPv4 only');
  }
  const head = Buffer.alloc(16);
  V2_SIGNATURE.copy(head);
  head[12] = 0x21;
  head[13] = 0x11;
  head.writeUInt16BE(body.length, 14);
  return Buffer.concat([head, body]);
}
