/**
 * A Java probe of test/clients compiled against pgjdbc (Debian's libpostgresql-jdbc-java) into a
 * folder of its own, then run: the set-up clients-jdbc and names-refs share.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './gateway.js';
import { describeProbe, runProbe, type ProbeResult } from './probe.js';

export const PGJDBC_JAR = '/usr/share/java/postgresql.jar';

export class JavaProbe {
  private readonly classes = mkdtempSync(join(tmpdir(), 'fdl-jdbc-'));

  /** Compile test/clients/<name>.java (asserting it compiles) and run its main class with `args`. */
  async run(name: string, args: string[], timeoutMs: number): Promise<ProbeResult> {
    assert.ok(existsSync(PGJDBC_JAR), `${PGJDBC_JAR} missing: install libpostgresql-jdbc-java`);
    if (!existsSync(join(this.classes, `${name}.class`))) {
      const compiled = await runProbe(
        'javac',
        ['-cp', PGJDBC_JAR, '-d', this.classes, join(ROOT, 'test', 'clients', `${name}.java`)],
        { timeoutMs: 120_000 },
      );
      assert.equal(compiled.code, 0, describeProbe(compiled));
    }
    return runProbe('java', ['-cp', `${this.classes}:${PGJDBC_JAR}`, name, ...args], { timeoutMs });
  }

  cleanup(): void {
    rmSync(this.classes, { recursive: true, force: true });
  }
}
