import type { Duration, Timestamp } from './types';

/** Milliseconds in a Duration; an absent Duration is 0 (which Temporal reads as "unset"). */
export function durationMs(d: Duration | null | undefined): number {
  if (!d) return 0;
  return (d.seconds ?? 0) * 1000 + Math.floor((d.nanos ?? 0) / 1e6);
}

export function msToDuration(ms: number): Duration {
  const whole = Math.floor(ms);
  return { seconds: Math.floor(whole / 1000), nanos: (whole % 1000) * 1e6 };
}

export function msToTimestamp(ms: number): Timestamp {
  return msToDuration(ms);
}

export function timestampMs(t: Timestamp | null | undefined): number | undefined {
  if (!t) return undefined;
  return durationMs(t);
}
