/**
 * COPY … TO STDOUT: rows are first encoded as DataRows by the same encoders the query path uses (so
 * values are spelled exactly as in a SELECT: text for the text and CSV formats, binary for BINARY),
 * then re-framed as PostgreSQL's COPY formats (copyto.c): text lines, CSV lines, or binary tuples
 * (a DataRow's body after its length is exactly a binary COPY tuple: field count, then each field's
 * length, -1 for NULL, and bytes), between the binary header and trailer.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import type { CopyOptions } from '../text/copy-options.js';
import * as be from './backend.js';
import type { Writer } from './writer.js';

const BACKSLASH = 0x5c;
const CH = (c: string) => c.charCodeAt(0);
/** "PGCOPY\n\377\r\n\0", then flags (no OIDs) and the header extension's length. */
const BINARY_SIGNATURE = Buffer.from([
  0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
]);

/** Control characters written as backslash sequences in the text format (CopyAttributeOutText). */
const TEXT_ESCAPES: Record<number, string> = { 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r' };

/** Escape one text-format field: backslash, \b \t \n \v \f \r and the delimiter. */
function textField(bytes: Buffer, delim: number): string {
  let needs = false;
  for (const b of bytes) {
    if (b === BACKSLASH || b === delim || TEXT_ESCAPES[b] !== undefined) {
      needs = true;
      break;
    }
  }
  const s = bytes.toString('utf8');
  if (!needs) return s;
  let out = '';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    const esc = TEXT_ESCAPES[c];
    if (esc !== undefined) out += esc;
    else if (c === BACKSLASH || c === delim) out += '\\' + ch;
    else out += ch;
  }
  return out;
}

/**
 * One CSV field (CopyAttributeOutCSV): quoted when forced, when it spells the NULL string, holds the
 * delimiter, the quote, CR or LF, or (alone on its line) is the end-of-data marker `\.`; inside
 * quotes the quote and escape characters are preceded by the escape character.
 */
function csvField(s: string, f: CopyOptions, forced: boolean, single: boolean): string {
  let quote = forced || s === f.nullString;
  if (!quote)
    quote =
      single && s === '\\.'
        ? true
        : s.includes(f.delimiter) || s.includes(f.quote) || s.includes('\n') || s.includes('\r');
  if (!quote) return s;
  let out = f.quote;
  for (const ch of s) out += ch === f.quote || ch === f.escape ? f.escape + ch : ch;
  return out + f.quote;
}

/** Which result columns FORCE_QUOTE names: every one for `*`; a name that is not a result column is PostgreSQL's 42703. */
export function forcedColumns(names: string[], f: CopyOptions): boolean[] {
  if (f.forceQuote === null) return names.map(() => false);
  if (f.forceQuote === '*') return names.map(() => true);
  for (const c of f.forceQuote) {
    if (!names.includes(c)) throw new SqlError(SQLSTATE.undefinedColumn, `column "${c}" does not exist`);
  }
  return names.map((n) => (f.forceQuote as string[]).includes(n));
}

/**
 * One COPY's framing. PostgreSQL sends the binary signature in the same CopyData message as the first
 * tuple (or the trailer, when there is none), each text or CSV line (the header too) in a message of
 * its own: the same messages here, so clients see PostgreSQL's bytes.
 */
export class CopyFramer {
  private signaturePending: boolean;
  private readonly forced: boolean[];
  private readonly delim: number;

  constructor(
    private readonly f: CopyOptions,
    private readonly names: string[],
  ) {
    this.forced = forcedColumns(names, f);
    this.signaturePending = f.format === 'binary';
    this.delim = f.delimiter.charCodeAt(0);
  }

  /** CopyOutResponse and the header line. */
  start(w: Writer): void {
    const { f, names } = this;
    be.copyOutResponse(w, names.length, f.format === 'binary' ? 1 : 0);
    if (f.format === 'binary' || !f.header) return;
    const fields =
      f.format === 'csv'
        ? names.map((n) => csvField(n, f, false, names.length === 1))
        : names.map((n) => textField(Buffer.from(n), this.delim));
    be.copyData(w, fields.join(f.delimiter) + '\n');
  }

  /** The binary trailer (a field count of -1); nothing for text and CSV. */
  end(w: Writer): void {
    if (this.f.format !== 'binary') return;
    const at = w.begin(CH('d'));
    this.signature(w);
    w.int16(-1);
    w.end(at);
  }

  private signature(w: Writer): void {
    if (!this.signaturePending) return;
    w.bytes(BINARY_SIGNATURE);
    this.signaturePending = false;
  }

  /** Convert the DataRows in `rows` (a buffer of complete 'D' messages) into CopyData messages. */
  rows(rows: Buffer, w: Writer): number {
    const { f, forced, delim } = this;
    const binary = f.format === 'binary';
    let pos = 0;
    let n = 0;
    while (pos < rows.length) {
      const len = rows.readInt32BE(pos + 1);
      const end = pos + 1 + len;
      if (binary) {
        const at = w.begin(CH('d'));
        this.signature(w);
        w.bytes(rows.subarray(pos + 5, end));
        w.end(at);
        pos = end;
        n++;
        continue;
      }
      const ncols = rows.readInt16BE(pos + 5);
      let p = pos + 7;
      const fields: string[] = [];
      for (let c = 0; c < ncols; c++) {
        const flen = rows.readInt32BE(p);
        p += 4;
        if (flen < 0) {
          fields.push(f.nullString);
          continue;
        }
        const bytes = rows.subarray(p, p + flen);
        p += flen;
        fields.push(
          f.format === 'csv' ? csvField(bytes.toString('utf8'), f, forced[c]!, ncols === 1) : textField(bytes, delim),
        );
      }
      be.copyData(w, fields.join(f.delimiter) + '\n');
      pos = end;
      n++;
    }
    return n;
  }
}
