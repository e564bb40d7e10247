/** A seeded 32-bit PRNG (mulberry32) whose whole state is one number, so it can be checkpointed and resumed. */
export class Rng {
  constructor(public state: number) {
    this.state = state >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A seeded Fisher–Yates shuffle of a copy. */
  shuffle<T>(xs: readonly T[]): T[] {
    const out = [...xs];
    for (let j = out.length - 1; j > 0; j--) {
      const k = Math.floor(this.next() * (j + 1));
      [out[j], out[k]] = [out[k] as T, out[j] as T];
    }
    return out;
  }
}
