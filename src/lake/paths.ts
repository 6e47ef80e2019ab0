/**
 * Data and delete file paths. FDL serves files only from <root>/<data_dir>: every path is the
 * concatenation schema.path + table.path + file.path (all relative), and must not be able to name
 * anything else — nor be glob-expanded by read_parquet, which has no escape syntax.
 */
import { SqlError, SQLSTATE } from '../errors.js';

export interface PathPart {
  path: string | null;
  relative: boolean | null;
}

/** Why a relative path is unacceptable, or null when it is fine. */
export function pathProblem(rel: string): string | null {
  if (rel.length === 0) return 'empty path';
  if (rel.includes('\0')) return 'NUL byte in path';
  if (rel.startsWith('/') || rel.startsWith('\\')) return `absolute data file path: ${rel}`;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(rel)) return `path with a scheme or drive: ${rel}`;
  if (rel.includes('\\')) return `backslash in path: ${rel}`;
  if (rel.split('/').some((seg) => seg === '..')) return `path escapes the data directory: ${rel}`;
  if (/[*?[\]{}]/.test(rel)) return `glob metacharacter in path (read_parquet would expand it): ${rel}`;
  return null;
}

/**
 * Join the catalog's path parts (the extension concatenates strings, no separator added) and
 * validate the result. Throws 0A000 naming the table and the file.
 */
export function joinRelative(parts: PathPart[], table: string, kind: string): string {
  let out = '';
  for (const part of parts) {
    if (part.path === null) continue; // NULL path: inherit the parent's directory
    if (part.relative === false) {
      throw new SqlError(
        SQLSTATE.featureNotSupported,
        `table ${table}: ${kind} file uses an absolute data file path: ${part.path} (path_is_relative = false)`,
      );
    }
    out += part.path;
  }
  const problem = pathProblem(out);
  if (problem) throw new SqlError(SQLSTATE.featureNotSupported, `table ${table}: ${kind} file refused: ${problem}`);
  return out;
}
