/** Lexical scanning and statement classification (src/text/split.ts, src/text/classify.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  mapCode,
  replaceParams,
  replaceQuotedIdentifiers,
  splitStatements,
  stripLeadingComments,
} from '../src/text/split.js';
import { classify } from '../src/text/classify.js';
import { commentShape } from '../src/text/comment-shape.js';

test('splitStatements cuts at top-level semicolons only', () => {
  assert.deepEqual(splitStatements('select 1; select \';\' as s; select "a;b" from t'), [
    'select 1',
    "select ';' as s",
    'select "a;b" from t',
  ]);
  assert.deepEqual(splitStatements("select E'it\\'s;' ; select 'it''s;'"), ["select E'it\\'s;'", "select 'it''s;'"]);
  assert.deepEqual(splitStatements('select $$a;b$$; select $tag$ ; $tag$'), ['select $$a;b$$', 'select $tag$ ; $tag$']);
  assert.deepEqual(splitStatements('select 1 -- c;\n; /* x; /* nested; */ */ select 2'), [
    'select 1 -- c;',
    '/* x; /* nested; */ */ select 2',
  ]);
  assert.deepEqual(splitStatements(' ; -- only a comment\n ;; '), []);
  assert.deepEqual(splitStatements('select $1; select 2'), ['select $1', 'select 2']);
  // PostgreSQL's dollar tags and names take any non-ASCII letter
  assert.deepEqual(splitStatements('select $é$ ; -- $é$; select 2'), ['select $é$ ; -- $é$', 'select 2']);
  assert.deepEqual(splitStatements('select é$a$ ; select 2 -- $a$'), ['select é$a$', 'select 2 -- $a$']);
  // a line comment ends at \r as well (an attacker review: code after it was taken for comment)
  assert.deepEqual(splitStatements('select 1 -- c\r; select 2'), ['select 1 -- c', 'select 2']);
});

test('mapCode: a dollar quote with a non-ASCII tag is no code, and a comment inside it none either', () => {
  const seen: string[] = [];
  mapCode('select $é$ -- x $é$, 1 -- c', (code) => (seen.push(code), code));
  assert.deepEqual(seen, ['select ', ', 1 ']);
});

test('stripLeadingComments skips whitespace and comments', () => {
  assert.equal(stripLeadingComments('  -- a\n /* b */ BEGIN'), 'BEGIN');
});

test('replaceParams replaces $n in code, never inside strings, identifiers or dollar quotes', () => {
  const out = replaceParams(`select $1, '$1', "$1", $$ $1 $$, x$1, $12`, (n) => `<${n}>`);
  assert.equal(out, `select <1>, '$1', "$1", $$ $1 $$, x$1, <12>`);
});

test('replaceQuotedIdentifiers sees identifiers only', () => {
  const out = replaceQuotedIdentifiers(`select * from "demo@v1".main.t, 'demo@v1' where "a""b" = 1`, (n) =>
    n === 'demo@v1' ? 'demo@123' : n === 'a"b' ? 'c' : undefined,
  );
  assert.equal(out, `select * from "demo@123".main.t, 'demo@v1' where "c" = 1`);
});

test('mapCode leaves strings and comments alone', () => {
  assert.equal(
    mapCode(`select 'fdl.refs' -- fdl.refs\n from fdl.refs`, (c) => c.replace(/fdl\.refs/g, 'X')),
    `select 'fdl.refs' -- fdl.refs\n from X`,
  );
});

test("commentShape: comments emptied in place, line ends kept; none where a comment's end is not certain", () => {
  const q = 'select 1 as a -- tag 1\nfrom t /* request 7 */ where x = 2 --end';
  assert.equal(commentShape(q), 'select 1 as a --\nfrom t /**/ where x = 2 --');
  assert.equal(commentShape('select 1 as a -- tag 2\nfrom t /* request 8 */ where x = 2 --'), commentShape(q));
  // a comment still separates what it separated: a line comment is not a block comment
  assert.notEqual(commentShape("select 'a' -- c\n'b'"), commentShape("select 'a' /* c */\n'b'"));
  assert.equal(commentShape('select 1 --c\rfrom t'), 'select 1 --\rfrom t');
  // inside a string, an identifier or no comment at all: nothing to share
  assert.equal(commentShape('select \'-- x\' as "/* y */"'), null);
  // left open, nested, a dollar quote or a backslash: the text is its own
  for (const own of ['select 1 /* open', 'select 1 /* a /* b */ c */', 'select $$x$$ /* a */', "select E'\\n' /* a */"])
    assert.equal(commentShape(own), null, own);
});

test('classify: transaction control, settings, cursors, COPY, refusals', () => {
  assert.deepEqual(classify('BEGIN READ ONLY'), { kind: 'begin', readOnly: true, isolation: null });
  assert.deepEqual(classify('rollback to savepoint "S1"'), { kind: 'rollbackTo', name: 'S1' });
  assert.deepEqual(classify("SET search_path TO 'a', b"), {
    kind: 'set',
    name: 'search_path',
    value: 'a, b',
    local: false,
  });
  assert.deepEqual(classify('SET TIME ZONE LOCAL'), { kind: 'set', name: 'timezone', value: null, local: false });
  // read by PostgreSQL's grammar: its other spellings, and nothing after the value
  assert.deepEqual(classify("SET SCHEMA 'sales'"), { kind: 'set', name: 'search_path', value: 'sales', local: false });
  assert.deepEqual(classify('SET LOCAL "TimeZone" TO \'UTC\''), {
    kind: 'set',
    name: 'timezone',
    value: 'UTC',
    local: true,
  });
  assert.deepEqual(classify('SET extra_float_digits = -1.5'), {
    kind: 'set',
    name: 'extra_float_digits',
    value: '-1.5',
    local: false,
  });
  assert.deepEqual(classify("SET TRANSACTION SNAPSHOT '00000003-1'"), {
    kind: 'setTransaction',
    session: false,
    isolation: null,
    snapshot: '00000003-1',
  });
  assert.deepEqual(classify('SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ'), {
    kind: 'setTransaction',
    session: true,
    isolation: 'repeatable read',
  });
  assert.deepEqual(classify("SET application_name = 'x' garbage"), {
    kind: 'refused',
    sqlstate: '42601',
    message: 'syntax error at or near "garbage"',
    hint: "LINE 1: SET application_name = 'x' garbage\n" + ' '.repeat(35) + '^',
  });
  assert.deepEqual(classify('show transaction isolation level'), { kind: 'show', name: 'transaction_isolation' });
  assert.deepEqual(classify('DECLARE "c1" BINARY NO SCROLL CURSOR WITH HOLD FOR select 1'), {
    kind: 'declare',
    name: 'c1',
    binary: true,
    hold: true,
    scroll: false,
    query: 'select 1',
  });
  assert.equal((classify('DECLARE c1 SCROLL CURSOR FOR select 1') as { scroll: boolean }).scroll, true);
  assert.equal((classify('DECLARE c1 CURSOR FOR select 1') as { scroll: boolean }).scroll, true);
  assert.deepEqual(classify('FETCH FORWARD 100 FROM c1'), {
    kind: 'fetch',
    name: 'c1',
    direction: { how: 'forward', count: 100 },
    move: false,
  });
  assert.deepEqual(classify('MOVE ALL IN c1'), {
    kind: 'fetch',
    name: 'c1',
    direction: { how: 'forward', count: Infinity },
    move: true,
  });
  const dir = (sql: string) => (classify(sql) as { direction: unknown }).direction;
  assert.deepEqual(dir('FETCH PRIOR FROM c1'), { how: 'backward', count: 1 });
  assert.deepEqual(dir('FETCH LAST c1'), { how: 'absolute', count: -1 });
  assert.deepEqual(dir('MOVE RELATIVE -3 IN c1'), { how: 'relative', count: -3 });
  assert.deepEqual(dir('FETCH -2 FROM c1'), { how: 'backward', count: 2 });
  assert.deepEqual(dir('FETCH BACKWARD ALL FROM c1'), { how: 'backward', count: Infinity });
  assert.deepEqual(classify('FETCH SIDEWAYS 2 FROM c1'), {
    kind: 'refused',
    sqlstate: '42601',
    message: 'syntax error at or near "2"', // PostgreSQL's words
    hint: 'LINE 1: FETCH SIDEWAYS 2 FROM c1\n' + ' '.repeat(23) + '^', // and its place (the wire's position)
  });
  assert.deepEqual(classify('COPY (select 1) TO STDOUT WITH (FORMAT csv, HEADER)'), {
    kind: 'copyOut',
    query: 'select 1',
    options: { format: 'csv', header: true, delimiter: ',', nullString: '', quote: '"', escape: '"', forceQuote: null },
  });
  assert.deepEqual(classify('COPY (select 1 as a, 2 as "B") TO STDOUT WITH CSV HEADER FORCE QUOTE a, "B"'), {
    kind: 'copyOut',
    query: 'select 1 as a, 2 as "B"',
    options: {
      format: 'csv',
      header: true,
      delimiter: ',',
      nullString: '',
      quote: '"',
      escape: '"',
      forceQuote: ['a', 'B'],
    },
  });
  assert.equal(
    (classify('COPY (select 1) TO STDOUT (FORMAT binary)') as { options: { format: string } }).options.format,
    'binary',
  );
  assert.deepEqual(classify('COPY (select 1) TO STDOUT (FORMAT binary, HEADER)'), {
    kind: 'refused',
    sqlstate: '0A000',
    message: 'cannot specify HEADER in BINARY mode',
  });
  assert.deepEqual(classify('COPY (select 1) TO STDOUT (FORCE_QUOTE *)'), {
    kind: 'refused',
    sqlstate: '0A000',
    message: 'COPY force quote available only in CSV mode',
  });
  assert.deepEqual(classify('COPY (select 1) TO STDOUT (FORMAT csv, FORCE_NULL (a))'), {
    kind: 'refused',
    sqlstate: '0A000',
    message: 'COPY force null only available using COPY FROM',
  });
  assert.deepEqual(classify('COPY (select 1) TO STDOUT (FORMAT csv, FORMAT text)'), {
    kind: 'refused',
    sqlstate: '42601',
    message: 'conflicting or redundant options',
  });
  assert.deepEqual(classify('LOCK TABLE main.t, "Odd, name" IN ACCESS SHARE MODE NOWAIT'), {
    kind: 'lock',
    relations: ['main.t', '"Odd, name"'],
    mode: 'ACCESS SHARE',
  });
  assert.deepEqual(classify('lock t'), { kind: 'lock', relations: ['t'], mode: 'ACCESS EXCLUSIVE' });
  assert.equal(classify('LOCK TABLE t IN SIDEWAYS MODE').kind, 'refused');
  assert.deepEqual(classify("copy t to '/tmp/x'"), {
    kind: 'refused',
    sqlstate: '42501',
    message: 'permission denied: COPY is only allowed as COPY (query) TO STDOUT',
  });
  assert.equal(classify('insert into t values (1)').kind, 'refused');
  assert.equal(classify('with x as (select 1) delete from t').kind, 'refused');
  assert.deepEqual(classify('select 1'), { kind: 'query', sql: 'select 1' });
});
