import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEnv } from '../../config/env';
import { runDemoConversations } from '../../demo/conversations';
import { demoSummary, formatDemoTranscript, type DemoTurnRecord } from '../../demo/demo-runner';
import { httpDemoSend, type DemoProgress } from '../../demo/http-send';
import { parseCommandArgs, usageError, type CliCommand, type CliIo } from '../command';
import { startStack, type RunningStack } from '../stack';

async function reachable(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1500) })).ok;
  } catch {
    return false;
  }
}

function jsonLine(r: DemoTurnRecord): string {
  const { conversation, turn, conversationId, user, reply, intent, state, outcome, workflowId } = r;
  return JSON.stringify({ conversation, turn, conversationId, user, reply, intent, state, outcome, workflowId });
}

/** A progress message (ce_verbose) the moment it arrives on the conversation's SSE stream. */
function progressPrinter(io: CliIo, json: boolean): DemoProgress {
  return (conversationId, text) =>
    io.out(json ? JSON.stringify({ progress: text, conversationId }) : `  … ${text} (${conversationId.slice(0, 8)})`);
}

/** A private embedded stack in a temp dir on free ports, so the demo never disturbs a running one. */
async function privateStack(io: CliIo, json: boolean): Promise<{ stack: RunningStack; home: string }> {
  const home = mkdtempSync(join(tmpdir(), 'convengine-demo-'));
  if (!json) io.out('No API is running: starting an embedded stack for the demo…');
  const stack = await startStack({
    env: loadEnv(),
    home,
    apiPort: 0,
    temporalPort: 0,
    temporalUi: false,
    log: () => undefined,
  });
  if (!json) for (const part of stack.embedded) io.out(`embedded ${part}`);
  return { stack, home };
}

const OPTIONS = { values: ['url'], flags: ['json'], positional: false };

const USAGE = [
  'convengine demo [--json] [--url http://127.0.0.1:3000]',
  '',
  'Uses the API at --url (default http://127.0.0.1:$PORT) when it answers, otherwise starts an',
  'embedded stack for the run. Progress messages print as they arrive (--json: {"progress", "conversationId"}',
  'lines); --json prints one JSON line per turn. Exits 1 if a reply differs.',
  'Sends API_TOKEN, when it is set, as the bearer token; an embedded stack it starts requires that token too.',
].join('\n');

export const demoCommand: CliCommand = {
  usage: USAGE,
  async run(args, io) {
    const parsed = parseCommandArgs('demo', args, OPTIONS);
    if (typeof parsed === 'string') return usageError(io, parsed, USAGE);
    const { options } = parsed;
    const json = options.has('json');
    const env = loadEnv();
    let url = options.get('url')?.at(-1) ?? `http://127.0.0.1:${env.PORT}`;
    let own: { stack: RunningStack; home: string } | null = null;
    if (!(await reachable(url))) {
      own = await privateStack(io, json);
      url = own.stack.apiUrl;
    }
    try {
      const send = httpDemoSend(url, env.API_TOKEN, progressPrinter(io, json));
      const records = await runDemoConversations(send, {
        onTurn: (r) => (json ? io.out(jsonLine(r)) : undefined),
      });
      if (!json) io.out(formatDemoTranscript(records));
      const summary = demoSummary(records);
      if (!json) io.out(`${summary.passed}/${summary.turns} turns gave the expected reply.`);
      return summary.failed === 0 ? 0 : 1;
    } finally {
      if (own) {
        await own.stack.stop();
        rmSync(own.home, { recursive: true, force: true });
      }
    }
  },
};
