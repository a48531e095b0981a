/**
 * Seeded PRNG (mulberry32) for fault schedules: a failing run prints its seed, and
 * RELIABILITY_SEED=<seed> replays the same schedule (kill points, victims, delays).
 */
export interface Prng {
  seed: number;
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
}

export function seedFromEnv(): number {
  const fromEnv = Number(process.env['RELIABILITY_SEED']);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : Math.floor(Math.random() * 2 ** 31) + 1;
}

export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    seed,
    next,
    int,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(0, items.length - 1)] as T;
    },
  };
}

/** `count` distinct integers in [min, max], ascending. */
export function distinctSorted(prng: Prng, count: number, min: number, max: number): number[] {
  const chosen = new Set<number>();
  while (chosen.size < Math.min(count, max - min + 1)) chosen.add(prng.int(min, max));
  return [...chosen].sort((a, b) => a - b);
}
