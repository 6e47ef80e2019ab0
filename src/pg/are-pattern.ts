/**
 * PostgreSQL's regular expressions (ARE, Henry Spencer's engine) read as DuckDB's RE2 reads them:
 * the escapes whose meaning differs are translated, those RE2 cannot express refused (0A000), never
 * passed on to mean something else. `\b` is a backspace in an ARE (RE2: a word boundary); `\y`/`\Y`
 * are ARE's word boundary and its negation; `\Z` the end of the string (RE2's `\z`); `\B` a backslash.
 * In a replacement, `\&` is the whole match (RE2: `\0`) and a backslash before anything but a digit
 * 1–9, `&` or a backslash is kept as text (RE2 refuses the rewrite).
 */
import { SqlError, SQLSTATE } from '../errors.js';

/** ARE escapes (outside a bracket expression) → RE2; `undefined` for those kept as written. */
const ESCAPES: Record<string, string> = {
  b: '\\x08',
  y: '\\b',
  Y: '\\B',
  Z: '\\z',
  B: '\\\\',
  e: '\\x1b',
  a: '\\x07',
};

/** Escapes RE2 has no way to say (word starts and ends need a look-ahead, which RE2 lacks). */
const UNSUPPORTED: Record<string, string> = {
  m: '\\m (start of a word)',
  M: '\\M (end of a word)',
};

function refused(what: string): SqlError {
  return new SqlError(
    SQLSTATE.featureNotSupported,
    `the regular expression escape ${what} is not supported by fdl-gateway`,
    undefined,
    'DuckDB matches with RE2, which has no look-ahead: use \\y for a word boundary, or match the word character explicitly (\\y\\w).',
  );
}

/**
 * An ARE pattern as RE2 reads it with PostgreSQL's meaning under PostgreSQL's `flags`, or 0A000. By
 * default (not newline-sensitive) `.` and `[^…]` match a newline, as RE2's `(?s)` does; `n` makes
 * both stop at a newline and `^`/`$` match at lines (RE2's `(?m)`), `p` only the former, `w` only the
 * latter. RE2's own `n`/`p` flags mean "never match a newline": they are taken off (`re2Flags`).
 */
export function re2Pattern(pattern: string, flags = ''): string {
  const lines = /[nw]/.test(flags);
  const newlineExcluded = /[np]/.test(flags);
  let out = newlineExcluded ? (lines ? '(?m)' : '') : lines ? '(?ms)' : '(?s)';
  let bracket = false;
  let negated = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\' && i + 1 < pattern.length) {
      const next = pattern[++i]!;
      if (bracket) out += next === 'b' ? '\\x08' : '\\' + next;
      else if (UNSUPPORTED[next]) throw refused(UNSUPPORTED[next]);
      else out += ESCAPES[next] ?? '\\' + next;
      continue;
    }
    if (!bracket && ch === '[') {
      bracket = true;
      negated = pattern[i + 1] === '^';
      out += ch;
      // `[]…]` and `[^]…]`: a leading `]` is a member, not the end.
      if (negated) out += pattern[++i];
      if (pattern[i + 1] === ']') out += pattern[++i];
      continue;
    }
    if (bracket && ch === '[' && (pattern[i + 1] === ':' || pattern[i + 1] === '.' || pattern[i + 1] === '=')) {
      // `[:alpha:]` inside a bracket expression: copied whole, its `]` does not close the bracket.
      const close = pattern.indexOf(pattern[i + 1] + ']', i + 2);
      if (close >= 0) {
        out += pattern.slice(i, close + 2);
        i = close + 1;
        continue;
      }
    }
    if (bracket && ch === ']') {
      bracket = false;
      if (newlineExcluded && negated) out += '\\n';
    }
    out += ch;
  }
  return out;
}

/** PostgreSQL's regexp flags as DuckDB takes them once re2Pattern has said the newline rules. */
export function re2Flags(flags: string): string {
  return flags.replace(/[npw]/g, '');
}

/** A regexp_replace replacement as RE2 reads it: `\&` the whole match, `\1`–`\9` groups, `\\` a backslash. */
export function re2Replacement(replacement: string): string {
  let out = '';
  for (let i = 0; i < replacement.length; i++) {
    const ch = replacement[i]!;
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const next = replacement[i + 1];
    if (next !== undefined && next >= '1' && next <= '9') out += '\\' + next;
    else if (next === '&') out += '\\0';
    else if (next === '\\') out += '\\\\';
    else {
      // Any other backslash is text in PostgreSQL; the character after it is read as usual.
      out += '\\\\';
      continue;
    }
    i++;
  }
  return out;
}
