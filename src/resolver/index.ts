/** FDL semantics: refs, versions, verification, signatures. */
export { openRepository, Repository } from './repository.js';
export type {
  RepositoryOptions,
  Resolution,
  RefInfo,
  VerifiedVersion,
  VersionInfo,
  DataFile,
  SignaturePolicy,
} from './repository.js';
export type { SignatureStatus } from './sshsig.js';
export { verifySshsig, parseAllowedSigners } from './sshsig.js';
export { isVersionId, refKind } from './names.js';
