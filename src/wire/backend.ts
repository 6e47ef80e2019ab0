/**
 * Backend serializer: each function appends one complete message to a Writer. No I/O here.
 */
import type { Writer } from './writer.js';
import type { FieldDescription } from '../pg/oids.js';

export type { FieldDescription };

/** Fields of ErrorResponse/NoticeResponse, keyed by their one-letter protocol codes. */
export interface Notice {
  severity: 'ERROR' | 'FATAL' | 'PANIC' | 'WARNING' | 'NOTICE' | 'DEBUG' | 'INFO' | 'LOG';
  code: string;
  message: string;
  detail?: string;
  hint?: string;
  position?: number;
}

const CH = (c: string) => c.charCodeAt(0);

export function authenticationOk(w: Writer): void {
  const at = w.begin(CH('R'));
  w.int32(0);
  w.end(at);
}

export function authenticationCleartext(w: Writer): void {
  const at = w.begin(CH('R'));
  w.int32(3);
  w.end(at);
}

export function authenticationMd5(w: Writer, salt: Buffer): void {
  const at = w.begin(CH('R'));
  w.int32(5);
  w.bytes(salt);
  w.end(at);
}

export function authenticationSasl(w: Writer, mechanisms: string[]): void {
  const at = w.begin(CH('R'));
  w.int32(10);
  for (const m of mechanisms) w.cstring(m);
  w.byte(0);
  w.end(at);
}

export function authenticationSaslContinue(w: Writer, data: string): void {
  const at = w.begin(CH('R'));
  w.int32(11);
  w.utf8(data);
  w.end(at);
}

export function authenticationSaslFinal(w: Writer, data: string): void {
  const at = w.begin(CH('R'));
  w.int32(12);
  w.utf8(data);
  w.end(at);
}

export function parameterStatus(w: Writer, name: string, value: string): void {
  const at = w.begin(CH('S'));
  w.cstring(name);
  w.cstring(value);
  w.end(at);
}

export function backendKeyData(w: Writer, pid: number, secret: number): void {
  const at = w.begin(CH('K'));
  w.int32(pid);
  w.int32(secret);
  w.end(at);
}

export function negotiateProtocolVersion(w: Writer, minor: number, unknown: string[]): void {
  const at = w.begin(CH('v'));
  w.int32(minor);
  w.int32(unknown.length);
  for (const o of unknown) w.cstring(o);
  w.end(at);
}

export function readyForQuery(w: Writer, status: 'I' | 'T' | 'E'): void {
  const at = w.begin(CH('Z'));
  w.byte(CH(status));
  w.end(at);
}

export function rowDescription(w: Writer, fields: readonly FieldDescription[]): void {
  const at = w.begin(CH('T'));
  w.int16(fields.length);
  for (const f of fields) {
    w.cstring(f.name);
    w.int32(f.tableOid ?? 0);
    w.int16(f.columnAttr ?? 0);
    w.int32(f.typeOid);
    w.int16(f.typeLen);
    w.int32(f.typeMod);
    w.int16(f.format);
  }
  w.end(at);
}

export function parameterDescription(w: Writer, oids: readonly number[]): void {
  const at = w.begin(CH('t'));
  w.int16(oids.length);
  for (const o of oids) w.uint32(o);
  w.end(at);
}

export function commandComplete(w: Writer, tag: string): void {
  const at = w.begin(CH('C'));
  w.cstring(tag);
  w.end(at);
}

/** A DataRow of already-encoded text values (used for SHOW and other gateway-made rows). */
export function dataRowText(w: Writer, values: readonly (string | null)[]): void {
  const at = w.begin(CH('D'));
  w.int16(values.length);
  for (const v of values) {
    if (v === null) {
      w.int32(-1);
    } else {
      const lenAt = w.reserveLength();
      const n = w.utf8(v);
      w.setInt32(lenAt, n);
    }
  }
  w.end(at);
}

function noticeFields(w: Writer, n: Notice): void {
  w.byte(CH('S')).cstring(n.severity);
  w.byte(CH('V')).cstring(n.severity);
  w.byte(CH('C')).cstring(n.code);
  w.byte(CH('M')).cstring(n.message);
  if (n.detail) w.byte(CH('D')).cstring(n.detail);
  if (n.hint) w.byte(CH('H')).cstring(n.hint);
  if (n.position) w.byte(CH('P')).cstring(String(n.position));
  w.byte(0);
}

export function errorResponse(w: Writer, n: Notice): void {
  const at = w.begin(CH('E'));
  noticeFields(w, n);
  w.end(at);
}

export function noticeResponse(w: Writer, n: Notice): void {
  const at = w.begin(CH('N'));
  noticeFields(w, n);
  w.end(at);
}

function empty(w: Writer, type: string): void {
  const at = w.begin(CH(type));
  w.end(at);
}

export const emptyQueryResponse = (w: Writer) => empty(w, 'I');
export const parseComplete = (w: Writer) => empty(w, '1');
export const bindComplete = (w: Writer) => empty(w, '2');
export const closeComplete = (w: Writer) => empty(w, '3');
export const noData = (w: Writer) => empty(w, 'n');
export const portalSuspended = (w: Writer) => empty(w, 's');
export const copyDone = (w: Writer) => empty(w, 'c');

export function copyOutResponse(w: Writer, columns: number, format: 0 | 1 = 0): void {
  const at = w.begin(CH('H'));
  w.byte(format);
  w.int16(columns);
  for (let i = 0; i < columns; i++) w.int16(format);
  w.end(at);
}

export function copyData(w: Writer, data: string): void {
  const at = w.begin(CH('d'));
  w.utf8(data);
  w.end(at);
}
