/**
 * The Python that sees SQLAlchemy 2 and pandas as well as Debian's psycopg 3 and asyncpg: the venv
 * scripts/test-deps.sh builds from test/clients/requirements-venv.txt. Missing is a failure that
 * says how to build it, never a skipped test.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export function venvPython(): string {
  const venv = process.env.FDL_TEST_VENV ?? join(homedir(), '.cache', 'fdl-gateway', 'test-venv');
  const python = join(venv, 'bin', 'python');
  if (!existsSync(python))
    throw new Error(`no Python venv at ${venv}: run scripts/test-deps.sh (as root, or with FDL_TEST_DEPS=install)`);
  return python;
}
