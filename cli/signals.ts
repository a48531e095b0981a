/**
 * SIGINT and SIGTERM for a long-running command that stops cleanly, perhaps with children (the embedded
 * PostgreSQL, a Temporal server): the first signal asks it to stop (`requested`), each later one to hurry (`onHurry`). It listens from
 * construction on, so no signal kills the process while it starts or stops, which would leave the children
 * running. The stop itself is bounded (API drain, worker force time, server kill), so the process still ends.
 */
export class StopSignals {
  readonly requested: Promise<NodeJS.Signals>;
  private hurry: () => void = () => undefined;
  private received = 0;

  constructor() {
    let request: (signal: NodeJS.Signals) => void = () => undefined;
    this.requested = new Promise((resolve) => (request = resolve));
    const onSignal = (signal: NodeJS.Signals): void => {
      this.received += 1;
      if (this.received === 1) request(signal);
      else this.hurry();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }

  /** What a second (and any later) signal does. A signal that came before this is set is answered at once. */
  onHurry(hurry: () => void): void {
    this.hurry = hurry;
    if (this.received > 1) hurry();
  }
}
