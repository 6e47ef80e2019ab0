/**
 * Split a simple-Query string into statements at top-level semicolons, honouring PostgreSQL and
 * DuckDB lexical rules: '…' with '' escapes, E'…' with backslash escapes, "…" identifiers,
 * $tag$…$tag$ bodies, -- line comments and nested /* block comments *\/.
 * Statements that hold only whitespace and comments are dropped.
 */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  let hasContent = false;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    if (c === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? n : nl + 1;
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      i = skipBlockComment(sql, i);
      continue;
    }
    if (c === ';') {
      if (hasContent) out.push(sql.slice(start, i).trim());
      start = i + 1;
      hasContent = false;
      i++;
      continue;
    }
    if (!isSpace(c)) hasContent = true;
    if (c === "'") {
      const escaped = i > 0 && (sql[i - 1] === 'E' || sql[i - 1] === 'e') && !isIdentChar(sql[i - 2]);
      i = skipQuoted(sql, i, "'", escaped);
    } else if (c === '"') {
      i = skipQuoted(sql, i, '"', false);
    } else if (c === '$') {
      i = skipDollar(sql, i);
    } else {
      i++;
    }
  }
  if (hasContent) out.push(sql.slice(start).trim());
  return out;
}

function isSpace(c: string): boolean {
  return c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '\f' || c === '\v';
}

function isIdentChar(c: string | undefined): boolean {
  return c !== undefined && /[A-Za-z0-9_$]/.test(c);
}

function skipQuoted(sql: string, i: number, q: string, backslash: boolean): number {
  i++;
  while (i < sql.length) {
    const c = sql[i]!;
    if (backslash && c === '\\') {
      i += 2;
      continue;
    }
    if (c === q) {
      if (sql[i + 1] === q) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return i;
}

function skipBlockComment(sql: string, i: number): number {
  let depth = 0;
  while (i < sql.length) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      depth++;
      i += 2;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else {
      i++;
    }
  }
  return i;
}

function skipDollar(sql: string, i: number): number {
  // $1 is a parameter; $tag$ or $$ opens a dollar-quoted string.
  const m = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 66));
  if (!m || isIdentChar(sql[i - 1])) return i + 1;
  const tag = m[0];
  const end = sql.indexOf(tag, i + tag.length);
  return end < 0 ? sql.length : end + tag.length;
}

/** Strip leading whitespace and comments, for classification. */
export function stripLeadingComments(sql: string): string {
  let i = 0;
  for (;;) {
    while (i < sql.length && isSpace(sql[i]!)) i++;
    if (sql.startsWith('--', i)) {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? sql.length : nl + 1;
    } else if (sql.startsWith('/*', i)) {
      i = skipBlockComment(sql, i);
    } else {
      return sql.slice(i);
    }
  }
}

/**
 * Replace `$n` parameter references outside strings, quoted identifiers and comments with
 * `replace(n)` (its text, or undefined to keep it). Used to give DuckDB the parameter types a
 * client declared, or `VARCHAR` where DuckDB cannot infer one (PostgreSQL's "unknown").
 */
export function replaceParams(sql: string, replace: (n: number) => string | undefined): string {
  let out = '';
  let last = 0;
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    if (c === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? n : nl + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      i = skipBlockComment(sql, i);
    } else if (c === "'") {
      const escaped = i > 0 && (sql[i - 1] === 'E' || sql[i - 1] === 'e') && !isIdentChar(sql[i - 2]);
      i = skipQuoted(sql, i, "'", escaped);
    } else if (c === '"') {
      i = skipQuoted(sql, i, '"', false);
    } else if (c === '$') {
      const m = /^\$(\d+)/.exec(sql.slice(i, i + 8));
      if (m && !isIdentChar(sql[i - 1])) {
        const r = replace(Number(m[1]));
        if (r !== undefined) {
          out += sql.slice(last, i) + r;
          last = i + m[0].length;
        }
        i += m[0].length;
      } else {
        i = skipDollar(sql, i);
      }
    } else {
      i++;
    }
  }
  return out + sql.slice(last);
}

/**
 * Rewrite double-quoted identifiers outside strings and comments: `replace(name)` returns the new
 * (unquoted) name or undefined to keep it. Cross-version catalogs ("demo@v1") are always quoted
 * because of the `@`, so this is how they are found and pinned to a version.
 */
export function replaceQuotedIdentifiers(sql: string, replace: (name: string) => string | undefined): string {
  let out = '';
  let last = 0;
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    if (c === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? n : nl + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      i = skipBlockComment(sql, i);
    } else if (c === "'") {
      const escaped = i > 0 && (sql[i - 1] === 'E' || sql[i - 1] === 'e') && !isIdentChar(sql[i - 2]);
      i = skipQuoted(sql, i, "'", escaped);
    } else if (c === '$') {
      i = /^\$\d/.test(sql.slice(i, i + 2)) ? i + 1 : skipDollar(sql, i);
    } else if (c === '"') {
      const end = skipQuoted(sql, i, '"', false);
      const name = sql.slice(i + 1, end - 1).replace(/""/g, '"');
      const r = replace(name);
      if (r !== undefined) {
        out += sql.slice(last, i) + `"${r.replace(/"/g, '""')}"`;
        last = end;
      }
      i = end;
    } else {
      i++;
    }
  }
  return out + sql.slice(last);
}

/** Catalog part of a qualified name as DuckDB's getTableNames prints it (`"a@b".main.t AS x`). */
export function splitQualifiedName(name: string): string[] {
  const parts: string[] = [];
  let i = 0;
  const s = name.replace(/\s+AS\s+.*$/i, '');
  while (i < s.length) {
    if (s[i] === '"') {
      const end = skipQuoted(s, i, '"', false);
      parts.push(s.slice(i + 1, end - 1).replace(/""/g, '"'));
      i = end;
    } else {
      const dot = s.indexOf('.', i);
      const part = s.slice(i, dot < 0 ? s.length : dot);
      parts.push(part);
      i = dot < 0 ? s.length : dot;
    }
    if (s[i] === '.') i++;
  }
  return parts;
}

/** Apply `fn` to every stretch of SQL outside strings, quoted identifiers, dollar quotes and comments. */
export function mapCode(sql: string, fn: (code: string) => string): string {
  let out = '';
  let codeStart = 0;
  let i = 0;
  const n = sql.length;
  const flush = (end: number, next: number) => {
    out += fn(sql.slice(codeStart, end)) + sql.slice(end, next);
    codeStart = next;
  };
  while (i < n) {
    const c = sql[i]!;
    let end = -1;
    if (c === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i);
      end = nl < 0 ? n : nl + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      end = skipBlockComment(sql, i);
    } else if (c === "'") {
      const escaped = i > 0 && (sql[i - 1] === 'E' || sql[i - 1] === 'e') && !isIdentChar(sql[i - 2]);
      end = skipQuoted(sql, i, "'", escaped);
    } else if (c === '"') {
      end = skipQuoted(sql, i, '"', false);
    } else if (c === '$' && !/^\$\d/.test(sql.slice(i, i + 2))) {
      const next = skipDollar(sql, i);
      if (next > i + 1) end = next;
    }
    if (end > i) {
      flush(i, end);
      i = end;
    } else i++;
  }
  return out + fn(sql.slice(codeStart));
}
