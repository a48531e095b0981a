import { userInfo } from 'node:os';
import { Client } from '@temporalio/client';
import { loadEnv } from '../../config/env';
import { configuredTemporal } from '../../config/temporal-connection';
import { engineDataConverter } from '../../db/data-converter';
import { awaitingApprovalQuery, temporalApprovalQueue } from '../../api/turns/approval-queue';
import { temporalHeldTools, type HeldToolOperations, type HeldTurn } from '../../api/turns/held-tools';
import {
  DECISION_LIMITS,
  HELD_TOOL_ACTIONS,
  heldToolDecisionProblem,
  type HeldToolDecisionAction,
} from '../../core/turn/operator-decision';
import type { HeldToolDecisionInput } from '../../workflows/messages';
import { TurnOutcomeValue, TurnSearchAttribute } from '../../workflows/search-attributes';
import { parseCommandArgs, usageError, type CliCommand, type CliIo } from '../command';
import { errorChain } from '../error-chain';
import { printApprovals, printParked } from './sre-lists';
import { addressOption, withTemporalConnection } from '../temporal/connect';
import { oneLineText, shownText } from '../../core/text/one-line-text';

/** The verbs are the update's actions, kebab-cased (markDone → mark-done). */
const ACTIONS: ReadonlyMap<string, HeldToolDecisionAction> = new Map(
  HELD_TOOL_ACTIONS.map((action) => [action.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`), action])
);

/** The option that carries each field of the decision, to name it in a refusal. */
const FLAGS: Readonly<Record<string, string>> = {
  reason: '--reason',
  decidedBy: '--by',
  callIndex: '--call',
  result: '--result',
};

/** The commands that list parked turns: the held ones, and the ones awaiting a tool approval. */
const LISTS = ['list', 'approvals'];

const USAGE = [
  'convengine sre list [--json] [--address host:port] [--namespace ns] [--task-queue q]',
  'convengine sre approvals [--json] [--address host:port] [--namespace ns] [--task-queue q]',
  'convengine sre retry|skip|fail --workflow-id <id> [--reason text] [--by name] [--call <n>] [--address …] [--namespace …]',
  '  [--task-queue …]',
  'convengine sre mark-done --workflow-id <id> --result <json> [--reason text] [--by name] [--address …] [--namespace …]',
  '  [--task-queue …]',
  '',
  'Turns whose tool call ran out of retries with on_retries_exhausted=HOLD, or a NON_IDEMPOTENT_WRITE',
  `whose outcome is unknown, wait for an operator (${TurnSearchAttribute.TurnOutcome}="${TurnOutcomeValue.Held}"). ` +
    'retry runs the call again with',
  'the same idempotency key; skip lets the failure stand, as without a hold (a planner call ends the',
  "planner loop with the tool error, TOOL_ERROR, and the turn answers as its state's response says; a direct",
  "call records it as the tool's result); fail ends the turn with a failure reply; mark-done records the result",
  'you verified upstream without calling the tool again.',
  `approvals lists the turns that wait for a tool approval (${TurnSearchAttribute.TurnOutcome}=` +
    `"${TurnOutcomeValue.AwaitingApproval}"): the tool, its call index, when it was asked and when it expires; decide`,
  'with the approval route (POST /api/v1/conversation/{id}/turns/{n}/approval), the console, or the update decideApproval.',
  `--reason takes up to ${DECISION_LIMITS.reasonChars} characters, --by ${DECISION_LIMITS.decidedByChars}, --result up to ` +
    `${DECISION_LIMITS.resultBytes} bytes of JSON (the turn refuses more whichever way it is sent).`,
  'Only a worker can read a held call or take a decision. Without one, list shows the held turns it cannot read',
  'and exits 1; a decision is not sent when no worker polls, and exits 1 after OPERATOR_DECISION_TIMEOUT_MS',
  '(default 10 s) when none takes it: it was sent then, and may still be applied when a worker returns.',
  'Same as: temporal workflow update execute --workflow-id <id> --name resolveHeldTool --input',
  '\'{"action":"retry","decidedBy":"you"}\'. Address: --address, TEMPORAL_ADDRESS or 127.0.0.1:7233;',
  'namespace: --namespace, TEMPORAL_NAMESPACE or default. Only the turns of one task queue (one deployment) are',
  "listed or decided: --task-queue, TEMPORAL_TASK_QUEUE or convengine-turns; another queue's turn is not found.",
].join('\n');

/**
 * Which of OPTIONS each verb reads: `sre list --call 5 --result '{bad'` ignored the decision's options without a word,
 * and a decision ignored --json.
 */
const LIST_OPTIONS = new Set(['json', 'address', 'namespace', 'task-queue']);
const DECISION_OPTIONS = new Set([
  'workflow-id',
  'reason',
  'by',
  'call',
  'result',
  'address',
  'namespace',
  'task-queue',
]);

const OPTIONS = {
  values: ['workflow-id', 'reason', 'by', 'call', 'result', 'address', 'namespace', 'task-queue'],
  flags: ['json'],
};

/**
 * One held turn; for a turn held by a worker before its memo said what it waits on (PARKED_MEMO_PATCH) and no worker
 * to ask, what visibility knows of it and why its held call is not shown. Each line quotes what the turn says (a
 * tool code, an intent and state from config rows; a worker's reason): its controls are shown (shownText).
 */
export function printHeldTurn(io: CliIo, { workflowId, held: h, intent, state, unavailable }: HeldTurn): void {
  const out = (line: string) => io.out(shownText(line));
  if (!h) {
    out(`${workflowId}  held call unavailable: ${unavailable ?? 'not answered'}`);
    if (intent !== null && state !== null) out(`  at ${intent} / ${state}`);
    return;
  }
  const unknown = h.outcomeUnknown ? ' OUTCOME UNKNOWN' : '';
  out(`${workflowId}  ${h.toolCode} (call ${h.callIndex}, ${h.sideEffect})${unknown}`);
  out(`  ${h.attempts} attempt(s), ${h.failureType}: ${oneLineText(h.error)}`);
  out(`  held since ${h.heldAt}, answers without it at ${h.expiresAt}`);
}

/** Lists the held turns; 1 when a worker could not tell the held call of some (they are listed all the same). */
async function printHeld(io: CliIo, ops: HeldToolOperations, json: boolean): Promise<number> {
  const turns = await ops.list();
  return printParked(io, turns, {
    json,
    none: 'No held turns.',
    print: printHeldTurn,
    unread: (t) => t.held === null,
    what: 'held call',
  });
}

/** A turn awaiting approval is no held turn, but an operator looking for what waits wants to know of it. */
async function pointAtApprovals(io: CliIo, client: Client, taskQueue: string): Promise<void> {
  const { count } = await client.workflow.count(awaitingApprovalQuery(taskQueue));
  if (count > 0) io.out(`${count} turn(s) await a tool approval: convengine sre approvals`);
}

/** The decision from the options, or a usage error; the rules are the turn's own (core/turn/operator-decision.ts). */
function decisionOf(action: HeldToolDecisionAction, options: Map<string, string[]>): HeldToolDecisionInput | string {
  const last = (name: string) => options.get(name)?.at(-1);
  const decision: HeldToolDecisionInput = {
    action,
    decidedBy: last('by') ?? `cli:${userInfo().username}`,
    reason: last('reason') ?? null,
  };
  const call = last('call');
  if (call !== undefined) {
    // 0 is a request's direct tool call; planner calls count from 1.
    if (!/^(0|[1-9][0-9]*)$/.test(call)) return '--call must be a call index: 0 (a direct tool call) or above';
    decision.callIndex = Number(call);
  }
  const result = last('result');
  if (result !== undefined) {
    try {
      decision.result = JSON.parse(result) as HeldToolDecisionInput['result'];
    } catch {
      return '--result must be JSON, e.g. \'{"claimId":"C-1"}\'';
    }
  }
  const problem = heldToolDecisionProblem(decision);
  return problem ? `${FLAGS[problem.field] ?? problem.field}: ${problem.message}` : decision;
}

/** What is wrong with the command words: none, an unknown one, or more than one. */
function verbProblem(positional: string[]): string {
  const verbs = [...LISTS, ...ACTIONS.keys()].join(', ');
  const [verb, ...extra] = positional;
  if (verb === undefined) return `sre needs a command: ${verbs}`;
  if (!LISTS.includes(verb) && !ACTIONS.has(verb)) return `sre: unknown command "${verb}" (${verbs})`;
  return `sre: unexpected argument(s): ${extra.join(' ')}`;
}

export const sreCommand: CliCommand = {
  usage: USAGE,
  async run(args, io) {
    const parsed = parseCommandArgs('sre', args, OPTIONS);
    if (typeof parsed === 'string') return usageError(io, parsed, USAGE);
    const { positional, options } = parsed;
    const [verb] = positional;
    const action = verb ? ACTIONS.get(verb) : undefined;
    if (positional.length !== 1 || (!LISTS.includes(verb ?? '') && !action)) {
      return usageError(io, verbProblem(positional), USAGE);
    }
    const foreign = [...options.keys()].filter(
      (name) => !(LISTS.includes(verb ?? '') ? LIST_OPTIONS : DECISION_OPTIONS).has(name)
    );
    if (foreign.length > 0) {
      const names = foreign.map((name) => `--${name}`).join(' ');
      return usageError(io, `sre ${verb} does not take ${names} (see its line below)`, USAGE);
    }
    const given = addressOption(options);
    if (typeof given === 'string') return usageError(io, given, USAGE);
    const workflowId = options.get('workflow-id')?.at(-1);
    const decision = action ? decisionOf(action, options) : null;
    if (action && !workflowId) io.err(`${verb} needs --workflow-id <id> (see convengine sre list)`);
    if (typeof decision === 'string') io.err(decision);
    if ((action && !workflowId) || typeof decision === 'string') return 2;
    const env = loadEnv();
    const temporal = configuredTemporal(env, given.address);
    const namespace = options.get('namespace')?.at(-1) ?? env.TEMPORAL_NAMESPACE;
    const taskQueue = options.get('task-queue')?.at(-1) ?? env.TEMPORAL_TASK_QUEUE;
    try {
      return await withTemporalConnection(temporal, async (connection) => {
        const decisionTimeoutMs = env.OPERATOR_DECISION_TIMEOUT_MS;
        // The turns' answers (queries, updates) are encrypted under PAYLOAD_ENCRYPTION_KEYS when it is set.
        const client = new Client({ connection, namespace, dataConverter: engineDataConverter(env) });
        if (verb === 'approvals') {
          return await printApprovals(io, temporalApprovalQueue(client, taskQueue), options.has('json'));
        }
        const ops = temporalHeldTools(client, { taskQueue, decisionTimeoutMs });
        if (!decision || !workflowId) {
          const code = await printHeld(io, ops, options.has('json'));
          if (!options.has('json')) await pointAtApprovals(io, client, taskQueue);
          return code;
        }
        const ack = await ops.resolve(workflowId, decision);
        io.out(shownText(`${workflowId}: ${ack.action} accepted for ${ack.toolCode} (call ${ack.callIndex})`));
        return 0;
      });
    } catch (err) {
      io.err(`sre ${verb}: ${errorChain(err)}`);
      return 1;
    }
  },
};
