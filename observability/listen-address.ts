/**
 * A listen address a variable names that cannot be bound (taken, or not an address of this host). A worker binds
 * every such address at start, before it connects anywhere or polls (worker/listeners.ts), so that this is a start
 * failure: the message names the variable and its value, and is whole on its own (`convengine start` prints only
 * the message; `convengine worker` says `worker failed to start: …` and exits 1).
 */
export class ListenAddressError extends Error {
  constructor(
    readonly variable: string,
    value: string,
    listener: string,
    reason: string
  ) {
    super(`${variable}=${value}: ${listener} cannot listen there: ${reason}`);
    this.name = 'ListenAddressError';
  }
}
