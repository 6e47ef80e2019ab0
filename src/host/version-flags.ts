/**
 * The flags every command that writes a new version takes after its own (fdl import, publish, delete,
 * update): the version's message and author, its signature, its dataset.json; and what they become
 * in the writer's options, with progress said on stderr.
 */
import type { Command } from 'commander';
import { ALLOWED_SIGNERS_HELP } from './preflight.js';

export interface VersionFlags {
  message?: string;
  author?: string;
  signKey?: string;
  allowedSigners?: string;
  dataset?: string;
}

export function versionFlags(cmd: Command): Command {
  return cmd
    .option('--message <TEXT>', 'version message')
    .option('--author <NAME>', 'version author')
    .option('--sign-key <PRIVATE_KEY_FILE>', 'sign version.json with this OpenSSH key (namespace fdl)')
    .option('--allowed-signers <FILE>', ALLOWED_SIGNERS_HELP)
    .option('--dataset <dataset.json>', "dataset.json for the version (default: the parent's)");
}

/** The writer's options from the flags (each writer's options type holds these). */
export function versionOptions(o: VersionFlags): VersionFlags & { progress: (line: string) => void } {
  return {
    message: o.message,
    author: o.author,
    signKey: o.signKey,
    allowedSigners: o.allowedSigners,
    dataset: o.dataset,
    progress: (l) => process.stderr.write(l + '\n'),
  };
}
