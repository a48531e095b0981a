/** Resolves on the first SIGINT or SIGTERM, for long-running commands that stop cleanly. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/**
 * While a command stops cleanly: the next SIGINT or SIGTERM calls `hurry` (cut the drain short) instead
 * of killing the process, which would leave its children (the embedded PostgreSQL) running.
 */
export function hurryOnNextSignal(hurry: () => void): void {
  void untilSignal().then(hurry);
}
