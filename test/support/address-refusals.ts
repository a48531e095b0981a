/**
 * The `--address` values every Temporal command refuses as a usage error (exit 2), each with the refusal's first line:
 * text that is no host:port, and ports outside 1 to 65535 (config/env-values.ts, one port rule).
 */
export function addressRefusals(before: readonly string[] = []): [string[], string][] {
  return ['nonsense:::', '127.0.0.1:99999', '127.0.0.1:0'].map((value) => [
    [...before, '--address', value],
    `--address must be host:port with a port from 1 to 65535, e.g. localhost:7233, not "${value}"`,
  ]);
}
