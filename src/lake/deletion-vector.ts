/**
 * DuckLake 1.0 deletion vectors (`format = 'puffin'`): a *bare* Iceberg `deletion-vector-v1` blob,
 *   u32 BE length | magic D1 D3 39 64 | i64 LE bitmap count | (u32 LE high key, portable Roaring)* | u32 BE CRC32
 * read_parquet cannot read it, so positions are decoded here. Real Puffin containers (PFA1, 1.1) are refused.
 */
import { SqlError, SQLSTATE } from '../errors.js';

const MAGIC = 0xd1d33964;
const COOKIE_NO_RUN = 12346;
const COOKIE_RUN = 12347;

let crcTable: Uint32Array | null = null;
export function crc32(buf: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const b of buf) crc = crcTable[(crc ^ b) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function bad(what: string, why: string): SqlError {
  return new SqlError(SQLSTATE.dataCorrupted, `deletion vector ${what}: ${why}`);
}

/** Decode one portable 32-bit Roaring bitmap at `off`; returns the values and the end offset. */
export function decodeRoaring(buf: Buffer, off: number, what: string): { values: number[]; end: number } {
  const cookie = buf.readUInt32LE(off);
  let size: number;
  let runBits: Buffer | null = null;
  let p: number;
  if ((cookie & 0xffff) === COOKIE_RUN) {
    size = (cookie >>> 16) + 1;
    const n = Math.ceil(size / 8);
    runBits = buf.subarray(off + 4, off + 4 + n);
    p = off + 4 + n;
  } else if (cookie === COOKIE_NO_RUN) {
    size = buf.readUInt32LE(off + 4);
    p = off + 8;
  } else {
    throw bad(what, 'not a portable Roaring bitmap');
  }
  const keys: number[] = [];
  const cards: number[] = [];
  for (let i = 0; i < size; i++, p += 4) {
    keys.push(buf.readUInt16LE(p));
    cards.push(buf.readUInt16LE(p + 2) + 1);
  }
  if (runBits === null || size >= 4) p += 4 * size; // offset header
  const values: number[] = [];
  for (let i = 0; i < size; i++) {
    const base = keys[i]! * 65536;
    const isRun = runBits !== null && (runBits[i >> 3]! >> (i & 7)) & 1;
    if (isRun) {
      const runs = buf.readUInt16LE(p);
      p += 2;
      for (let r = 0; r < runs; r++, p += 4) {
        const start = buf.readUInt16LE(p);
        const len = buf.readUInt16LE(p + 2);
        for (let v = start; v <= start + len; v++) values.push(base + v);
      }
    } else if (cards[i]! > 4096) {
      for (let w = 0; w < 1024; w++, p += 8) {
        const word = buf.readBigUInt64LE(p);
        if (word === 0n) continue;
        for (let b = 0; b < 64; b++) if ((word >> BigInt(b)) & 1n) values.push(base + w * 64 + b);
      }
    } else {
      for (let c = 0; c < cards[i]!; c++, p += 2) values.push(base + buf.readUInt16LE(p));
    }
  }
  return { values, end: p };
}

/** Deleted row positions (0-based file_row_number values), ascending. */
export function decodeDeletionVector(buf: Buffer, what: string): number[] {
  if (buf.length >= 4 && buf.subarray(0, 4).toString('latin1') === 'PFA1') {
    throw new SqlError(
      SQLSTATE.featureNotSupported,
      `deletion vector ${what}: Puffin container files (DuckLake 1.1) are not supported`,
    );
  }
  if (buf.length < 12) throw bad(what, 'file too short');
  const len = buf.readUInt32BE(0);
  if (len + 8 > buf.length || buf.readUInt32BE(4) !== MAGIC) throw bad(what, 'bad length or magic');
  const body = buf.subarray(4, 4 + len);
  if (crc32(body) !== buf.readUInt32BE(4 + len)) throw bad(what, 'CRC mismatch');
  const count = Number(body.readBigInt64LE(4));
  let off = 12;
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const high = body.readUInt32LE(off);
    const { values, end } = decodeRoaring(body, off + 4, what);
    for (const v of values) out.push(high * 2 ** 32 + v);
    off = end;
  }
  return out;
}
