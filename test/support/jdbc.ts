/**
 * Java probes (test/clients/*.java) against pgjdbc (Debian's libpostgresql-jdbc-java): compiled
 * together once, then run. clients-jdbc, names-refs and clients-twins share the compiled classes.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './gateway.js';
import { describeProbe, runProbe, type ProbeResult } from './probe.js';

export const PGJDBC_JAR = '/usr/share/java/postgresql.jar';
const SOURCES = join(ROOT, 'test', 'clients');

let compiled: Promise<string> | undefined;

/**
 * The folder of every probe's classes. javac (a JVM start and seconds of CPU) runs once per content
 * of the sources and the jar: into a folder aside, renamed into place in the temp dir under their
 * hash, so the test files that run probes side by side share one compilation and never see half of one.
 */
export function javaClasses(): Promise<string> {
  compiled ??= (async () => {
    if (!existsSync(PGJDBC_JAR)) throw new Error(`${PGJDBC_JAR} missing: install libpostgresql-jdbc-java`);
    const names = readdirSync(SOURCES)
      .filter((n) => n.endsWith('.java'))
      .sort();
    const hash = createHash('sha256').update(`${statSync(PGJDBC_JAR).size} ${statSync(PGJDBC_JAR).mtimeMs}\0`);
    for (const n of names) hash.update(`${n}\0${readFileSync(join(SOURCES, n), 'utf8')}\0`);
    const classes = join(tmpdir(), `fdl-jdbc-classes-${hash.digest('hex').slice(0, 16)}`);
    if (existsSync(classes)) return classes;
    const aside = mkdtempSync(`${classes}.making-`);
    try {
      const javac = await runProbe('javac', ['-cp', PGJDBC_JAR, '-d', aside, ...names.map((n) => join(SOURCES, n))], {
        timeoutMs: 120_000,
      });
      if (javac.code !== 0) throw new Error(`javac failed: ${describeProbe(javac)}`);
      try {
        renameSync(aside, classes);
      } catch (e) {
        // Another test file compiled the same sources first: use theirs.
        if (!['ENOTEMPTY', 'EEXIST'].includes((e as NodeJS.ErrnoException).code ?? '')) throw e;
      }
    } finally {
      rmSync(aside, { recursive: true, force: true });
    }
    return classes;
  })();
  return compiled;
}

/** Run the probe class `name` (test/clients/<name>.java) with `args`. */
export async function runJavaProbe(name: string, args: string[], timeoutMs: number): Promise<ProbeResult> {
  return runProbe('java', ['-cp', `${await javaClasses()}:${PGJDBC_JAR}`, name, ...args], { timeoutMs });
}
