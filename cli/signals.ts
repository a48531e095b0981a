import { readFileSync } from 'node:fs';
import { constants } from 'node:os';

/** 128 + the signal's number: what a shell reports for a command a signal ended. */
export const interruptedExitCode = (signal: NodeJS.Signals): number => 128 + (constants.signals[signal] ?? 2);

/**
 * SIGINT and SIGTERM for a long-running command that stops cleanly, perhaps with children (the embedded
 * PostgreSQL, a Temporal server): the first signal asks it to stop (`requested`), each later one to hurry (`onHurry`). It listens from
 * construction on, so no signal kills the process while it starts or stops, which would leave the children
 * running. The stop itself is bounded (API drain, worker force time, server kill), so the process still ends.
 */
export class StopSignals {
  readonly requested: Promise<NodeJS.Signals>;
  private hurry: () => void = () => undefined;
  private request: (signal: NodeJS.Signals) => void = () => undefined;
  private received = 0;
  private readonly onSignal = (signal: NodeJS.Signals): void => {
    this.received += 1;
    if (this.received === 1) this.request(signal);
    else this.hurry();
  };

  constructor() {
    this.requested = new Promise((resolve) => (this.request = resolve));
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  /** Stops listening, for a command that listened only for a part of its run: a signal then ends the process again. */
  close(): void {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }

  /**
   * Stops as a first SIGTERM does, for a reason that is not a signal (the launcher went away). Once a stop was asked
   * for it does nothing (it is no user asking to hurry) and returns false.
   */
  stopAsOnSigterm(): boolean {
    return this.stopAs('SIGTERM');
  }

  /** stopAsOnSigterm, as on `signal`: SIGPIPE when stdout's reader went away (cli/closed-output.ts). */
  stopAs(signal: NodeJS.Signals): boolean {
    if (this.received > 0) return false;
    this.received = 1;
    this.request(signal);
    return true;
  }

  /** What a second (and any later) signal does. A signal that came before this is set is answered at once. */
  onHurry(hurry: () => void): void {
    this.hurry = hurry;
    if (this.received > 1) hurry();
  }
}

/**
 * Whether npm launched this process as the product's own entry point: `npm start` / `npm run start` (the start
 * script) or `npx` / `npm exec` (the bin). npm sets these in the environment of what it runs, and passes a SIGTERM on
 * to its `sh -c` child only, which dies without passing it on. Any other script (`npm test`, which spawns stacks of
 * its own) leaves them inherited: its processes are not ours to stop when their parent goes.
 */
export function launchedByNpm(env: NodeJS.ProcessEnv): boolean {
  return env.npm_lifecycle_event === 'start' || env.npm_command === 'exec';
}

/**
 * Calls `gone` once, with the old parent's pid, when this process's parent ends (it is then reparented, so its
 * ppid changes). Polled on an unref'd timer: it keeps no process alive. Returns a function that stops watching.
 */
export function watchParent(gone: (parentPid: number) => void, intervalMs = 500): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    gone(parent);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * npm passes a SIGTERM to its `sh -c` child only (`npx convengine start|worker|api`, a script without `exec`): that
 * shell dies without passing it on, and this process would serve on as an orphan holding its port (and --home). So,
 * run by npm, the end of the parent is a stop, as on SIGTERM, and `say` tells why. `stopAsOnSigterm` returns false
 * when a stop was already under way (a Ctrl-C reaches npm and node both): nothing is said then. Started otherwise, a
 * process reparented was detached on purpose.
 */
export function stopWhenNpmEnds(stopAsOnSigterm: () => boolean, say: (line: string) => void): void {
  // eslint-disable-next-line no-restricted-properties -- npm's own variables say who launched us; no configuration
  if (!launchedByNpm(process.env)) return;
  // Said once the parent is gone, but read now: /proc no longer has it then.
  const why = launcherGone(process.ppid);
  watchParent(() => {
    if (stopAsOnSigterm()) say(why);
  });
}

/** A process's command name (npm titles itself `npm exec …`) and parent, from /proc; null without /proc or process. */
export interface ProcessFacts {
  name: string;
  parentPid: number;
}

export function processFacts(pid: number): ProcessFacts | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": the name may hold spaces and parentheses, the last ")" ends it.
    const parentPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return { name: readFileSync(`/proc/${pid}/comm`, 'utf8').trim(), parentPid };
  } catch {
    return null;
  }
}

/**
 * Why the stop, naming the parent as it is: npm itself (`npm start` execs node), or the `sh -c` npm runs a bin
 * through (`npx`), which is not npm and has a pid of its own. Where /proc cannot tell (macOS), only the pid is known.
 */
export function launcherGone(parentPid: number, facts: (pid: number) => ProcessFacts | null = processFacts): string {
  const parent = facts(parentPid);
  const isNpm = (p: ProcessFacts | null): boolean => p?.name.startsWith('npm') ?? false;
  if (parent === null) return `the process that launched this one (pid ${parentPid}) is gone: stopping`;
  if (isNpm(parent)) return `npm (pid ${parentPid}), which launched this process, is gone: stopping`;
  const ranBy = isNpm(facts(parent.parentPid)) ? `, which npm (pid ${parent.parentPid}) ran,` : '';
  return `${parent.name} (pid ${parentPid})${ranBy} launched this process and is gone: stopping`;
}
