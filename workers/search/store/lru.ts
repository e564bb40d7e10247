/**
 * A byte-budgeted LRU (Map iteration order is insertion order, so the first
 * entry is the least recently used). Its size never exceeds the budget.
 */
export class ByteLru<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private used = 0;

  constructor(
    readonly budgetBytes: number,
    private readonly sizeOf: (key: string, value: V) => number,
  ) {}

  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The least recently used key: the next to go. */
  get oldest(): string | undefined {
    return this.entries.keys().next().value;
  }

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value;
  }

  set(key: string, value: V): void {
    const bytes = this.sizeOf(key, value);
    this.delete(key);
    if (bytes > this.budgetBytes) return; // would evict everything and still not fit
    while (this.used + bytes > this.budgetBytes) {
      const oldest = this.entries.keys().next().value as string;
      this.delete(oldest);
    }
    this.entries.set(key, { value, bytes });
    this.used += bytes;
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }

  delete(key: string): void {
    const e = this.entries.get(key);
    if (e) {
      this.entries.delete(key);
      this.used -= e.bytes;
    }
  }
}
