import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEnv } from '../../config/env';
import { runDemoConversations } from '../../demo/conversations';
import { demoSummary, formatDemoTranscript, type DemoTurnRecord } from '../../demo/demo-runner';
import { httpDemoSend, type DemoProgress } from '../../demo/http-send';
import { parseCommandArgs, usageError, type CliCommand, type CliIo } from '../command';
import { whenStdoutCloses } from '../closed-output';
import { interruptedExitCode, StopSignals } from '../signals';
import { startStack } from '../stack';
import { outJson } from '../json-line';

async function reachable(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1500) })).ok;
  } catch {
    return false;
  }
}

/** A turn's JSON line: `ok` and `mismatch` (null when it matched) say whether and why it failed, as exit 1 does. */
function turnJson(r: DemoTurnRecord): object {
  const { conversation, turn, conversationId, user, reply, intent, state, outcome, workflowId, ok } = r;
  const mismatch = r.mismatch ?? null;
  return {
    conversation,
    turn,
    conversationId,
    user,
    reply,
    intent,
    state,
    outcome,
    workflowId,
    ok,
    mismatch,
  };
}

/** A progress message (ce_verbose) the moment it arrives on the conversation's SSE stream. */
function progressPrinter(io: CliIo, json: boolean): DemoProgress {
  return (conversationId, text) =>
    json ? outJson(io, { progress: text, conversationId }) : io.out(`  … ${text} (${conversationId.slice(0, 8)})`);
}

/**
 * Runs the demo against a private embedded stack in a temp dir on free ports, so it never disturbs a running
 * one. The stack's PostgreSQL runs in its own process group, so a Ctrl-C never reaches it: the signals are
 * handled as `convengine start` handles them (StopSignals), and the stack is stopped and its home removed
 * however the run ends.
 */
async function withPrivateStack(io: CliIo, json: boolean, demo: (url: string) => Promise<number>): Promise<number> {
  const signals = new StopSignals();
  // A reader gone from stdout (`--json | head -1`) stops the stack as a signal would, and the demo exits 141.
  whenStdoutCloses(() => signals.stopAs('SIGPIPE'));
  let interrupted: NodeJS.Signals | null = null;
  void signals.requested.then((signal) => {
    interrupted = signal;
    io.err(`demo: ${signal}: stopping its embedded stack (again to stop now)…`);
  });
  const home = mkdtempSync(join(tmpdir(), 'convengine-demo-'));
  try {
    if (!json) io.out('No API is running: starting an embedded stack for the demo…');
    const stack = await startStack({
      env: loadEnv(),
      home,
      apiPort: 0,
      temporalPort: 0,
      temporalUi: false,
      log: () => undefined,
    });
    signals.onHurry(() => stack.hurry());
    try {
      if (!json) for (const part of stack.embedded) io.out(`embedded ${part}`);
      const outcome = await (interrupted ?? Promise.race([signals.requested, demo(stack.apiUrl)]));
      return typeof outcome === 'number' ? outcome : interruptedExitCode(outcome);
    } finally {
      await stack.stop();
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** The API `--url` names, without a trailing slash, or null when it is not an http(s) URL. */
function apiUrlOption(given: string): string | null {
  try {
    const url = new URL(given);
    return url.protocol === 'http:' || url.protocol === 'https:' ? given.replace(/\/+$/, '') : null;
  } catch {
    return null;
  }
}

const OPTIONS = { values: ['url'], flags: ['json'], positional: false };

const USAGE = [
  'convengine demo [--json] [--url http://127.0.0.1:3000]',
  '',
  'Uses the API at --url, and fails (exit 1) when it does not answer. Without --url it uses',
  'http://127.0.0.1:$PORT when that answers, otherwise starts an embedded stack for the run (Ctrl-C stops',
  'it and removes its temp dir). Progress messages print as they arrive (--json: {"progress", "conversationId"}',
  'lines); --json prints one JSON line per turn, whose "ok" and "mismatch" (null when it matched) say which',
  'turn failed and why. Exits 1 if a reply differs or a turn could not run.',
  'Sends API_TOKEN, when it is set, as the bearer token (OPERATOR_API_TOKEN when that is set: progress comes on',
  "the audit stream, an operator's route); an embedded stack it starts requires those tokens too.",
].join('\n');

export const demoCommand: CliCommand = {
  usage: USAGE,
  async run(args, io) {
    const parsed = parseCommandArgs('demo', args, OPTIONS);
    if (typeof parsed === 'string') return usageError(io, parsed, USAGE);
    const { options } = parsed;
    const json = options.has('json');
    const env = loadEnv();
    const demo = async (url: string): Promise<number> => {
      const send = httpDemoSend(url, env.OPERATOR_API_TOKEN ?? env.API_TOKEN, progressPrinter(io, json));
      const records = await runDemoConversations(send, {
        onTurn: (r) => (json ? outJson(io, turnJson(r)) : undefined),
      });
      if (!json) io.out(formatDemoTranscript(records));
      const summary = demoSummary(records);
      if (!json) io.out(`${summary.passed}/${summary.turns} turns gave the expected reply.`);
      return summary.failed === 0 ? 0 : 1;
    };
    const given = options.get('url')?.at(-1);
    if (given === undefined) {
      const local = `http://127.0.0.1:${env.PORT}`;
      return (await reachable(local)) ? demo(local) : withPrivateStack(io, json, demo);
    }
    // An explicit URL is used as given: no private stack in its place.
    const url = apiUrlOption(given);
    if (url === null) return usageError(io, `--url expects an http(s) URL (got "${given}")`, USAGE);
    if (!(await reachable(url))) {
      io.err(`demo: no ConvEngine API answers at ${url} (GET ${url}/healthz failed)`);
      return 1;
    }
    return demo(url);
  },
};
