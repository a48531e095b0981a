/** A protobuf timestamp as Temporal's API gives it: a protobufjs message, or sdk-core's JSON (seconds as a string). */
export type TemporalTimestamp = { seconds?: unknown; nanos?: unknown } | null | undefined;

const num = (v: unknown): number => Number(v ?? 0);

/** A protobuf (or sdk-core JSON) timestamp as epoch ms; null when absent. */
export function epochMs(t: TemporalTimestamp): number | null {
  if (!t) return null;
  return num(t.seconds) * 1000 + Math.floor(num(t.nanos) / 1e6);
}
