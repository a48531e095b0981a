import { DrizzleQueryError } from 'drizzle-orm';
import { shownText } from '../core/text/one-line-text';

/**
 * Why something failed, for a terminal: rawErrorChain with its controls shown as code points (shownText): an error
 * quotes what it failed on (a config row's value, a workflow id, a server's reply).
 */
export function errorChain(err: unknown): string {
  return shownText(rawErrorChain(err));
}

/**
 * Why something failed: the first line of the error and of each cause under it. The outer message alone often hides
 * the reason: the Temporal client's "Failed to connect to Temporal server" does not say whether the certificate, the
 * API key or the network was refused. The text as the errors wrote it, controls and all: for JSON (which escapes
 * them itself) or for a caller that shows the whole line through shownText; never for a terminal as it is.
 */
export function rawErrorChain(err: unknown): string {
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
