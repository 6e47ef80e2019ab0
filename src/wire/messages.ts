/** Frontend messages as the codec hands them to the connection (PostgreSQL protocol 3.0). */
import type { SqlError } from '../errors.js';

export const PROTOCOL_3_0 = 196608;
export const SSL_REQUEST_CODE = 80877103;
export const GSSENC_REQUEST_CODE = 80877104;
export const CANCEL_REQUEST_CODE = 80877102;

/** The first, untyped message of a connection. */
export type StartupPacket =
  | { kind: 'ssl' }
  | { kind: 'gssenc' }
  | { kind: 'cancel'; pid: number; secret: number }
  | { kind: 'startup'; major: number; minor: number; params: Map<string, string>; unknownOptions: string[] };

export type FrontendMessage =
  | { type: 'Query'; sql: string }
  | { type: 'Parse'; name: string; sql: string; paramTypes: number[] }
  | {
      type: 'Bind';
      portal: string;
      statement: string;
      paramFormats: number[];
      params: (Buffer | null)[];
      resultFormats: number[];
    }
  | { type: 'Describe'; target: 'S' | 'P'; name: string }
  | { type: 'Execute'; portal: string; maxRows: number }
  | { type: 'Close'; target: 'S' | 'P'; name: string }
  | { type: 'Sync' }
  | { type: 'Flush' }
  | { type: 'Terminate' }
  | { type: 'Password'; data: Buffer }
  | { type: 'CopyData'; data: Buffer }
  | { type: 'CopyDone' }
  | { type: 'CopyFail'; message: string }
  | { type: 'FunctionCall' }
  /** A correctly framed message whose body is invalid: an error for the session, not the end of it. */
  /** A well-framed message that could not be read; `query` when it was a Query (answered like one: error, then ReadyForQuery). */
  | { type: 'Invalid'; error: SqlError; query?: boolean };
