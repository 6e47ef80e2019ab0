/** `fdl push SRC DST`: the command line of src/host/push.ts. Exit 1 when a ref was refused. */
import type { Command } from 'commander';
import { pushRepository } from './push.js';
import { trustCaFile } from '../store/tls-trust.js';
import { commandAction } from './interrupt.js';

export function registerPushCommand(program: Command): void {
  program
    .command('push')
    .description(
      'copy versions (same IDs and signatures), their data and refs to another location: only what DST lacks, every file checked; refs last, tags never rewritten, branches only forward; expired versions go without their data; a failed or interrupted push removes the version it was copying',
    )
    .argument('<SRC>', 'folder, file://, s3://bucket/prefix/ or https://host/prefix/ (read through refs.json)')
    .argument('<DST>', 'folder (e.g. one an HTTPS server mirrors), file:// or s3://bucket/prefix/')
    .option(
      '--ca-file <PEM>',
      'trust the CA certificates in this PEM file for https:// and S3 endpoints (also FDL_CA_FILE)',
    )
    .action(
      commandAction(async (src: string, dst: string, o: { caFile?: string }) => {
        {
          if (o.caFile) trustCaFile(o.caFile);
          const r = await pushRepository(src, dst, { progress: (l) => process.stderr.write(l + '\n') });
          process.stdout.write(
            `pushed ${r.versionsCopied.length} version(s) (${r.versionsPresent} already there), ${r.filesCopied} file(s) written (${r.filesPresent} already there); ` +
              `refs moved: ${r.refsMoved.length ? r.refsMoved.join(', ') : 'none'}${r.refsRefused.length ? `; refused: ${r.refsRefused.join(', ')}` : ''}\n`,
          );
          return r.refsRefused.length ? 1 : 0;
        }
      }),
    );
}
