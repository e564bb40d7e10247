/**
 * A byte-budgeted LRU (Map iteration order is insertion order, so the first
 * entry is the least recently used). Its size never exceeds the budget.
 */
export class ByteLru<V, K = string> {
  private readonly entries = new Map<K, { value: V; bytes: number }>();
  private used = 0;

  constructor(
    readonly budgetBytes: number,
    private readonly sizeOf: (key: K, value: V) => number,
  ) {}

  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value;
  }

  set(key: K, value: V): void {
    const bytes = this.sizeOf(key, value);
    this.delete(key);
    if (bytes > this.budgetBytes) return; // would evict everything and still not fit
    while (this.used + bytes > this.budgetBytes) {
      const oldest = this.entries.keys().next().value as K;
      this.delete(oldest);
    }
    this.entries.set(key, { value, bytes });
    this.used += bytes;
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }

  delete(key: K): void {
    const e = this.entries.get(key);
    if (e) {
      this.entries.delete(key);
      this.used -= e.bytes;
    }
  }
}
