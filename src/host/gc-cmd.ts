/** `fdl gc LOCATION [--dry-run] [--grace DURATION]`: the command line of src/host/gc.ts. */
import { commandAction } from './interrupt.js';
import type { Command } from 'commander';
import { collectGarbage, parseDuration } from './gc.js';

export function registerGcCommand(program: Command): void {
  program
    .command('gc')
    .description(
      'remove data files no unexpired version reads and version folders no writer finished (older than --grace; a writer whose process is gone from this host: at once), and the temp work folders of fdl runs on this host that were killed before cleaning up; never what a live version or a running writer needs',
    )
    .argument('<LOCATION>')
    .option('--dry-run', 'only list what would be removed')
    .option(
      '--grace <DURATION>',
      "keep unreferenced objects, and other hosts' pending markers, younger than this (e.g. 30m, 12h, 7d); a marker whose process is gone from this host goes at once",
      '24h',
    )
    .action(
      commandAction(async (location: string, o: { dryRun?: boolean; grace: string }) => {
        const r = await collectGarbage(location, {
          dryRun: o.dryRun,
          graceMs: parseDuration(o.grace),
          report: (l) => process.stderr.write(l + '\n'),
        });
        process.stdout.write(
          `${o.dryRun ? 'would remove' : 'removed'} ${r.removed.length} object(s) (${r.unfinished.length} unfinished version folder(s)) and ${r.workFolders.length} work folder(s) of dead writers; kept ${r.keptYoung.length} younger than the grace period; ${r.writers.length} writer(s) running\n`,
        );
      }),
    );
}
