/**
 * PostgreSQL 15's settings only a superuser (or pg_read_all_settings) may read: file locations,
 * libraries, SSL material, replication connection strings. Gateway users are never superusers
 * (pg_roles.rolsuper is false), so, as PostgreSQL does for such a user, pg_settings leaves them
 * out and SHOW / current_setting refuse them (42501). Their reference values were the paths of
 * the server the catalog was captured from (`/tmp/pg15/data`). The list is PostgreSQL 15's: the
 * names in a superuser's pg_settings that an ordinary login's lacks.
 */
export const PRIVILEGED_SETTINGS: ReadonlySet<string> = new Set([
  'config_file',
  'data_directory',
  'dynamic_library_path',
  'extension_destdir',
  'external_pid_file',
  'hba_file',
  'ident_file',
  'jit_provider',
  'krb_server_keyfile',
  'log_directory',
  'log_filename',
  'primary_conninfo',
  'session_preload_libraries',
  'shared_preload_libraries',
  'ssl_ciphers',
  'ssl_dh_params_file',
  'ssl_ecdh_curve',
  'ssl_max_protocol_version',
  'ssl_min_protocol_version',
  'ssl_passphrase_command',
  'unix_socket_directories',
]);

/** PostgreSQL's refusal, word for word. */
export function privilegedSettingMessage(name: string): string {
  return `must be superuser or have privileges of pg_read_all_settings to examine "${name}"`;
}
