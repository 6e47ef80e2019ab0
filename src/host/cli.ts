/**
 * Host commands of `fdl` (init, import, publish, delete, update, tag, branch, log, verify, expire, demo). Names and flags are
 * a contract (issue 8). Errors print one line and exit non-zero; verify's exit code is its verdict.
 * Writing commands stopped by SIGINT/SIGTERM roll back and exit 130/143 (interrupt.ts).
 */
import { commandAction } from './interrupt.js';
import type { Command } from 'commander';
import { importData, parseTableSpec } from './import.js';
import { parseLayoutFlags, parseSize } from './layout.js';
import { publishCatalog } from './publish.js';
import { initRepository } from './repo.js';
import { branchCommand, tagCommand } from './refs-cmd.js';
import { logCommand } from './log.js';
import { verifyRepository } from './verify.js';
import { expireVersion } from './expire.js';
import { buildDemo } from './demo.js';
import { registerPushCommand } from './push-cmd.js';
import { registerGcCommand } from './gc-cmd.js';
import { registerRowChangeCommands } from './row-change-cmd.js';
import { versionFlags, versionOptions, type VersionFlags } from './version-flags.js';

const collect = (v: string, prev: string[] = []) => [...prev, v];
const wrap = commandAction;
const readOnly = <A extends unknown[]>(fn: (...a: A) => Promise<number | void>) => commandAction(fn, false);

export function registerHostCommands(program: Command): void {
  program.addHelpText(
    'after',
    '\nPublisher commands that write (import, publish, delete, update, push, gc, …) stopped by Ctrl-C\n(SIGINT) or SIGTERM remove what they had written and exit 130 / 143.',
  );
  registerGcCommand(program);
  registerPushCommand(program);
  registerRowChangeCommands(program);
  program
    .command('init')
    .description('create an FDL repository (fdl.json only if absent, HEAD)')
    .argument('<LOCATION>', 'folder, file:// or s3://bucket/prefix/')
    .option('--id <UUID>', 'repository id (default: a random UUID)')
    .option('--data-dir <PREFIX>', 'where data files live under the root', 'data/')
    .action(
      wrap(async (location: string, o: { id?: string; dataDir?: string }) => {
        const r = await initRepository(location, { id: o.id, dataDir: o.dataDir });
        if (r.created)
          process.stdout.write(
            `initialized FDL repository ${r.settings.id ?? ''} at ${location} (data_dir ${r.settings.dataDir})\n`,
          );
        else
          process.stdout.write(
            `${location} is already an FDL repository (id ${r.settings.id ?? 'none'}, data_dir ${r.settings.dataDir}); kept its settings\n`,
          );
      }),
    );

  versionFlags(
    program
      .command('import')
      .description('import CSV, Parquet or JSON files as a new version on a branch')
      .argument('<LOCATION>')
      .requiredOption('--table <SCHEMA.TABLE=FILE>', 'a table and its source file; repeatable', collect)
      .option('--branch <NAME>', 'branch to build on and move', 'main')
      .option('--mode <MODE>', "append (add files) or replace (end the table's old files)", 'append'),
  )
    .option(
      '--partition-by <SCHEMA.TABLE=EXPR[,EXPR…]>',
      "partition keys: col, year(c), month(c), day(c), hour(c); repeatable (default: the table's current keys)",
      collect,
      [],
    )
    .option(
      '--sort-by <SCHEMA.TABLE=COL[,COL…]>',
      "sort each partition's rows by these columns (tighter file statistics); repeatable",
      collect,
      [],
    )
    .option('--target-file-size <SIZE>', 'split new files at about this size, e.g. 512MB (default), 64MB', '512MB')
    .option(
      '--memory-limit <SIZE>',
      'memory the import may use (DuckDB memory_limit, e.g. 2GB); larger sources spill to the temp folder',
    )
    .action(
      wrap(
        async (
          location: string,
          o: VersionFlags & {
            table: string[];
            branch: string;
            mode: string;
            partitionBy: string[];
            sortBy: string[];
            targetFileSize: string;
            memoryLimit?: string;
          },
        ) => {
          if (o.mode !== 'append' && o.mode !== 'replace')
            throw new Error(`--mode must be append or replace, not ${o.mode}`);
          const r = await importData(location, {
            layout: parseLayoutFlags(o.partitionBy, o.sortBy),
            targetFileSize: parseSize(o.targetFileSize),
            memoryLimit: o.memoryLimit,
            tables: o.table.map(parseTableSpec),
            branch: o.branch,
            mode: o.mode,
            ...versionOptions(o),
          });
          process.stdout.write(`${r.versionId}\n`);
        },
      ),
    );

  versionFlags(
    program
      .command('publish')
      .description('freeze an existing DuckDB-file DuckLake catalog (any DuckLake writer) as a new version on a branch')
      .argument('<LOCATION>')
      .requiredOption('--catalog <WORKING.ducklake>', 'the working catalog (DuckDB file; DuckLake 1.0 or 0.4)')
      .option('--branch <NAME>', 'branch to build on and move', 'main'),
  )
    .option(
      '--data-from <DIR>',
      'local folder laid out like data_dir: referenced files missing from the repository are uploaded from here',
    )
    .action(
      wrap(
        async (
          location: string,
          o: VersionFlags & {
            catalog: string;
            branch: string;
            dataFrom?: string;
          },
        ) => {
          const r = await publishCatalog(location, {
            catalog: o.catalog,
            branch: o.branch,
            dataFrom: o.dataFrom,
            ...versionOptions(o),
          });
          process.stdout.write(`${r.versionId}\n`);
        },
      ),
    );

  program
    .command('tag')
    .description('create a tag (never rewritten) at REF (default HEAD)')
    .argument('<LOCATION>')
    .argument('<NAME>')
    .argument('[REF]')
    .action(
      wrap(async (location: string, name: string, ref?: string) => {
        process.stdout.write(`refs/tags/${name} → ${await tagCommand(location, name, ref)}\n`);
      }),
    );

  program
    .command('branch')
    .description('create a branch at REF (default HEAD)')
    .argument('<LOCATION>')
    .argument('<NAME>')
    .argument('[REF]')
    .action(
      wrap(async (location: string, name: string, ref?: string) => {
        process.stdout.write(`refs/heads/${name} → ${await branchCommand(location, name, ref)}\n`);
      }),
    );

  program
    .command('log')
    .description('history along parents with signature status')
    .argument('<LOCATION>')
    .argument('[REF]')
    .option('--allowed-signers <FILE>', 'trusted keys (OpenSSH allowed_signers)')
    .action(
      readOnly(async (location: string, ref: string | undefined, o: { allowedSigners?: string }) => {
        process.stdout.write(await logCommand(location, ref, o.allowedSigners));
      }),
    );

  program
    .command('verify')
    .description(
      'check every version: hashes, signatures, catalogs, data files; warn of unfinished versions and orphan data files; exit code 0 when all hold (and, with --strict, no warning)',
    )
    .argument('<LOCATION>')
    .option('--allowed-signers <FILE>', 'require every version to be signed by a key in this file')
    .option('--strict', 'warnings (unfinished versions, orphan data files) fail too')
    .action(
      readOnly(async (location: string, o: { allowedSigners?: string; strict?: boolean }) => {
        const r = await verifyRepository(location, {
          allowedSigners: o.allowedSigners,
          report: (l) => process.stdout.write(l + '\n'),
        });
        const w = r.warnings.length
          ? `, ${r.warnings.length} warning(s) (unfinished versions, orphan data files: fdl gc removes them)`
          : '';
        process.stdout.write(
          r.ok ? `ok: ${r.versions} version(s) verified${w}\n` : `FAILED: ${r.problems.length} problem(s)${w}\n`,
        );
        return r.ok && !(o.strict && r.warnings.length) ? 0 : 1;
      }),
    );

  program
    .command('expire')
    .description('mark a version expired (writes expired.json)')
    .argument('<LOCATION>')
    .argument('<VERSION>')
    .option('--successor <VERSION>', 'the version readers should use instead')
    .option(
      '--sign-key <PRIVATE_KEY_FILE>',
      'sign expired.json with this OpenSSH key (namespace fdl): readers with trusted keys keep the expiry for good',
    )
    .action(
      wrap(async (location: string, version: string, o: { successor?: string; signKey?: string }) => {
        const id = await expireVersion(location, version, o.successor, undefined, o.signKey);
        process.stdout.write(`version ${id} expired\n`);
      }),
    );

  program
    .command('demo')
    .description('build the demo repository (two signed versions, tags v1 and v2, branch dev)')
    .argument('[DIR]', 'where to build it', 'fdl-demo')
    .action(
      wrap(async (dir: string) => {
        const r = await buildDemo(dir, (l) => process.stderr.write(l + '\n'));
        process.stdout.write(
          `demo repository at ${dir}: v1 ${r.v1}, v2 ${r.v2}\nserve it with: fdl serve --repo demo=${dir}\n`,
        );
      }),
    );
}
