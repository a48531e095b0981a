import { DrizzleQueryError } from 'drizzle-orm';

/**
 * Why something failed, in one line: the first line of the error and of each cause under it. The
 * outer message alone often hides the reason: the Temporal client's "Failed to connect to Temporal
 * server" does not say whether the certificate, the API key or the network was refused.
 */
export function errorChain(err: unknown): string {
  const lines: string[] = [];
  for (let e: unknown = err; e !== undefined && lines.length < 4; e = e instanceof Error ? e.cause : undefined) {
    // A failed query's own message is its SQL text and parameters (a config row's values among them): its cause says why.
    if (e instanceof DrizzleQueryError && e.cause !== undefined) continue;
    const line = e instanceof Error ? firstLine(e) : String(e);
    if (line && !lines.includes(line)) lines.push(line);
  }
  return lines.join(': ');
}

/**
 * An error's first line; a socket error without a message (an AggregateError of every address tried) by its code;
 * the worker's native connection error (Rust's debug form of a tonic transport error) by the OS's own words.
 */
function firstLine(err: Error): string {
  const line = err.message.split('\n')[0];
  const osMessage = line?.startsWith('tonic::transport::Error') ? /message: "([^"]+)"/.exec(line)?.[1] : undefined;
  if (osMessage) return osMessage;
  if (line) return line;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : err.name;
}
