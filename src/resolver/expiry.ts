/**
 * A version's expiry (expired.json): once seen it is recorded in the state directory, so deleting
 * expired.json does not un-expire a version. With trusted keys only a signed expiry is recorded
 * (expired.json.sig by a trusted key, naming this version): an unsigned one is honoured while the
 * file is there, so a store writer can neither make a forged expiry permanent nor lift a signed one.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import type { StateMap } from '../state/state-map.js';
import type { RefCache } from '../cache/ref-cache.js';
import type { ObjectStore } from '../store/store.js';
import { parseExpired, type ExpiryMark } from './records.js';
import type { VersionInfo } from './types.js';
import type { VersionMetas } from './version-meta.js';

const MAX_EXPIRED_JSON = 64 * 1024;

export class Expiries {
  constructor(
    private readonly store: ObjectStore,
    /** expired.json is read through the ref cache: a version attached for a while is re-checked at most a ref TTL after it appears. */
    private readonly refs: RefCache,
    private readonly metas: VersionMetas,
    private readonly hasTrustedKeys: boolean,
    private readonly recorded: StateMap<ExpiryMark>,
  ) {}

  /** The version's expiry, or null. */
  async of(id: string): Promise<VersionInfo['expired']> {
    const known = this.recorded.get(id);
    if (known) return known;
    const body = await this.refs.get(this.store, `versions/${id}/expired.json`, MAX_EXPIRED_JSON);
    if (body === null) return null;
    const mark = parseExpired(body);
    if (this.hasTrustedKeys && !(await this.signed(id, body))) return { ...mark, unsigned: true };
    await this.recorded.set(id, mark);
    return mark;
  }

  /** Refuses a version that has expired (3D000, naming its successor when it has one). */
  async checkNotExpired(id: string): Promise<void> {
    const expired = await this.of(id);
    if (!expired) return;
    const date = expired.expired ?? 'an unknown date';
    const succ = expired.successor ? `, successor ${expired.successor}` : '';
    throw new SqlError(
      SQLSTATE.invalidCatalogName,
      `version ${id} expired ${date}${succ}: its retention has passed and it can no longer be queried`,
      [
        expired.reason ? `reason: ${expired.reason}` : '',
        expired.unsigned
          ? 'the expiry is not signed by a trusted key: honoured while expired.json is there, not remembered'
          : '',
      ]
        .filter(Boolean)
        .join('; ') || undefined,
      expired.successor ? `query the successor version ${expired.successor} instead` : undefined,
    );
  }

  private async signed(id: string, body: Buffer): Promise<boolean> {
    let names: unknown;
    try {
      names = (JSON.parse(body.toString('utf8')) as { id?: unknown }).id;
    } catch {
      return false;
    }
    if (names !== id) return false; // a signed expiry of another version, copied here
    return (await this.metas.signatureOf(`versions/${id}/expired.json.sig`, body)).status === 'G';
  }
}
