/**
 * What all the sessions of one user hold together, for the budgets that must not grow with the
 * number of sessions: a user with 100 sessions may not hold 100 × a session's prepared text or
 * parameters. Each session registers its own holders (its named statements, its parameters) when
 * it starts and takes them back when it ends; a budget check reads the user's other holders as
 * they are now, so nothing is counted twice or kept after a session ends. Process-wide.
 */
export class UserHoldings<T extends object> {
  private readonly byUser = new Map<string, Set<T>>();
  private readonly owners = new WeakMap<T, string>();

  /** `holder` counts for `user` until the returned release is called. */
  hold(user: string, holder: T): () => void {
    const set = this.byUser.get(user) ?? new Set<T>();
    this.byUser.set(user, set);
    set.add(holder);
    this.owners.set(holder, user);
    return () => {
      set.delete(holder);
      this.owners.delete(holder);
      if (set.size === 0 && this.byUser.get(user) === set) this.byUser.delete(user);
    };
  }

  /** The holders of the same user as `holder`, other than it (none when it is not registered). */
  others(holder: T): T[] {
    const user = this.owners.get(holder);
    const set = user === undefined ? undefined : this.byUser.get(user);
    return set ? [...set].filter((h) => h !== holder) : [];
  }
}
