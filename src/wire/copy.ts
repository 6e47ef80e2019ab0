/**
 * COPY … TO STDOUT: rows are first encoded as text DataRows by the same encoders the query path
 * uses (so values are spelled exactly as in a SELECT), then re-framed as COPY lines in PostgreSQL's
 * text or CSV format.
 */
import * as be from './backend.js';
import type { Writer } from './writer.js';

export interface CopyFormat {
  format: 'text' | 'csv';
  delimiter: string;
  header: boolean;
}

const BACKSLASH = 0x5c;

/** Escape one text-format field: backslash, newline, carriage return, tab and the delimiter. */
function textField(bytes: Buffer, delim: number): string {
  let needs = false;
  for (const b of bytes) {
    if (b === BACKSLASH || b === 0x0a || b === 0x0d || b === 0x09 || b === delim) {
      needs = true;
      break;
    }
  }
  const s = bytes.toString('utf8');
  if (!needs) return s;
  let out = '';
  for (const ch of s) {
    if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch.charCodeAt(0) === delim) out += '\\' + ch;
    else out += ch;
  }
  return out;
}

/** Quote a CSV field when it holds the delimiter, a quote, CR/LF, or is empty (to tell it from NULL). */
function csvField(s: string, delim: string): string {
  if (s === '' || s.includes(delim) || s.includes('"') || s.includes('\n') || s.includes('\r') || s === '\\.') {
    return `"${s.replace(/"/g, '""')}"`;
  }
  return s;
}

export function copyHeader(w: Writer, names: string[], f: CopyFormat): void {
  const line = f.format === 'csv' ? names.map((n) => csvField(n, f.delimiter)).join(f.delimiter) : names.join(f.delimiter);
  be.copyData(w, line + '\n');
}

/** Convert the DataRows in `rows` (a buffer of complete 'D' messages) into CopyData messages. */
export function dataRowsToCopy(rows: Buffer, w: Writer, f: CopyFormat): number {
  const delim = f.delimiter.charCodeAt(0);
  let pos = 0;
  let n = 0;
  while (pos < rows.length) {
    const len = rows.readInt32BE(pos + 1);
    const end = pos + 1 + len;
    const ncols = rows.readInt16BE(pos + 5);
    let p = pos + 7;
    const fields: string[] = [];
    for (let c = 0; c < ncols; c++) {
      const flen = rows.readInt32BE(p);
      p += 4;
      if (flen < 0) {
        fields.push(f.format === 'csv' ? '' : '\\N');
        continue;
      }
      const bytes = rows.subarray(p, p + flen);
      p += flen;
      fields.push(f.format === 'csv' ? csvField(bytes.toString('utf8'), f.delimiter) : textField(bytes, delim));
    }
    be.copyData(w, fields.join(f.delimiter) + '\n');
    pos = end;
    n++;
  }
  return n;
}
