/**
 * The ready-to-paste psql line `fdl serve` prints once it listens: an address a client can reach
 * (a wildcard listener is reached on loopback), the first repository, and a user the configured
 * authentication accepts (under trust any name; with users, one of them, whose password psql asks for).
 */
import type { GatewayConfig } from '../gateway.js';

export function psqlHint(
  config: Pick<GatewayConfig, 'repos' | 'auth' | 'users' | 'tls'>,
  address: { host: string; port: number },
  envUser = process.env.USER,
): string {
  const host = address.host === '0.0.0.0' ? '127.0.0.1' : address.host === '::' ? '::1' : address.host;
  const names = Object.keys(config.users ?? {});
  const trust = config.auth === 'trust';
  const user = trust ? (envUser ?? 'me') : (names[0] ?? 'USER');
  const ssl = config.tls?.mode === 'required' ? ' sslmode=require' : '';
  const repo = config.repos[0]?.name ?? 'NAME';
  // libpq's conninfo quoting (a value in single quotes, \\ and \' escaped), not SQL's: not quote.ts.
  const quote = (v: string) =>
    /^[A-Za-z0-9_.@:/-]+$/.test(v) ? v : `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const line = `connect with: psql "host=${quote(host)} port=${address.port} dbname=${quote(repo)} user=${quote(user)}${ssl}"`;
  return trust
    ? line
    : `${line}   (${config.auth} authentication: psql asks for ${user}'s password${names.length > 1 ? `; users: ${names.join(', ')}` : ''})`;
}
