/** `fdl delete` and `fdl update`: the command line of src/host/row-change.ts. */
import { commandAction } from './interrupt.js';
import type { Command } from 'commander';
import { versionFlags, versionOptions, type VersionFlags } from './version-flags.js';
import { changeRows, NoRowMatched, type RowChangeOptions } from './row-change.js';

type Flags = VersionFlags & {
  table: string;
  where: string;
  set?: string;
  branch: string;
};

/** Prints the new version id on stdout; when no row matches, nothing (exit 0) and says so on stderr. */
async function run(location: string, o: Flags): Promise<void> {
  const opts: RowChangeOptions = {
    table: o.table,
    where: o.where,
    set: o.set,
    branch: o.branch,
    ...versionOptions(o),
  };
  const verb = o.set === undefined ? 'delete' : 'update';
  const r = await changeRows(location, opts).catch((e: unknown) => {
    if (e instanceof NoRowMatched) return e;
    throw e;
  });
  if (r instanceof NoRowMatched) {
    process.stderr.write(`fdl: ${r.message}\n`);
    return;
  }
  process.stderr.write(
    `${verb}d ${r.rows.toLocaleString('en')} row(s): ${r.deleteFiles} delete file(s), ${r.endedFiles} data file(s) ended, ${r.dataFiles} new data file(s)\n`,
  );
  process.stdout.write(`${r.versionId}\n`);
}

function common(cmd: Command): Command {
  return versionFlags(
    cmd
      .argument('<LOCATION>')
      .requiredOption('--table <SCHEMA.TABLE>', 'the table (schema defaults to main)')
      .requiredOption(
        '--where <PREDICATE>',
        "one SQL expression over the table's columns (DuckDB syntax; no FROM, subquery, table or file); --where true for every row. No row matches: nothing written, exit 0",
      )
      .option('--branch <NAME>', 'branch to build on and move', 'main'),
  );
}

export function registerRowChangeCommands(program: Command): void {
  common(
    program
      .command('delete')
      .description('delete the rows of a table that match --where: a new version with DuckLake delete files'),
  ).action(commandAction(run));
  common(
    program
      .command('update')
      .description(
        'change the rows of a table that match --where: a new version with DuckLake delete files and new data files',
      ),
  )
    .requiredOption(
      '--set <COL = EXPR, …>',
      "new values, as in UPDATE … SET (DuckDB syntax; expressions see the old row and the table's columns only)",
    )
    .action(commandAction(run));
}
