import { toolCodeKey } from '../../core/config/vocabulary';
import { createHash } from 'node:crypto';
import { EngineError, ErrorType } from '../../core/errors';
import { canonicalJson, type Json } from '../../core/json';
import type { LlmClient, LlmJsonResult, LlmRequest } from '../../core/llm';
import type { ApprovalDecision } from '../../core/turn/contracts';
import type { ApprovalRequest, HeldToolRequest, HeldToolResolution } from '../../core/turn/executor';
import type { MissingRecording } from '../../core/whatif/diff';
import type { RecordedApproval, RecordedHoldDecision, RecordedToolCall, Recording } from '../../db/whatif/recording';
import { jsonResult } from '../llm/json-output';
import type { ToolHandler } from '../tools/deps';

/**
 * What a replay answers with instead of a model, a tool or an approver: the recorded answer to the
 * same question. A question never recorded is noted as missing and refused (never guessed).
 */

/** The error a replay step gets for a question never recorded; not retried. */
export const NOT_RECORDED = 'WHATIF_NOT_RECORDED';

const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?/g;

/**
 * Text as it is matched: the replay runs under a scratch conversation id, and prompts that name the
 * conversation (or a turn id) or the current time say so; both are normalised on both sides.
 */
export function normaliserFor(scratchId: string, recordedId: string): (text: string) => string {
  const rename = renamerFor(scratchId, recordedId);
  return (text) => rename(text).replace(ISO_TIME, '<time>');
}

/** The replay's text in recorded terms: its scratch conversation id (also inside turn ids) becomes the recorded one. */
export function renamerFor(scratchId: string, recordedId: string): (text: string) => string {
  return (text) => text.split(scratchId).join(recordedId);
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Queues of recorded answers by key; a turn takes its own answers first, in recorded order. */
class AnswerBook<T extends { turnNumber: number | null }> {
  private readonly byKey = new Map<string, T[]>();
  private readonly used = new Set<T>();

  add(key: string, entry: T): void {
    this.byKey.set(key, [...(this.byKey.get(key) ?? []), entry]);
  }

  /** An unused answer of this turn, else the last answer of this turn, else any answer to the same question. */
  take(key: string, turnNumber: number): T | undefined {
    const all = this.byKey.get(key) ?? [];
    const mine = all.filter((e) => e.turnNumber === turnNumber);
    const fresh =
      mine.find((e) => !this.used.has(e)) ?? mine.at(-1) ?? all.find((e) => !this.used.has(e)) ?? all.at(-1);
    if (fresh) this.used.add(fresh);
    return fresh;
  }
}

export interface ReplayFeeds {
  llm: LlmClient;
  /** Handler for every tool code (consumer handlers win over built-in tools in executeTool). */
  toolHandler: ToolHandler;
  approve(request: ApprovalRequest): Promise<ApprovalDecision>;
  /**
   * The operator's recorded decision on a held tool call (#22): the replay holds where the turn held and
   * resolves as they did. Null (the failure stands, noted as missing) when no decision was recorded.
   */
  decideHeldTool(request: HeldToolRequest): Promise<HeldToolResolution | null>;
  /** Sets the turn whose recordings are preferred and starts its list of missing recordings. */
  beginTurn(turnNumber: number): void;
  /** What the current turn needed and did not find. */
  missing(): MissingRecording[];
}

const llmKey = (kind: string, prompt: string) => `${kind}\n${sha(prompt)}`;
const toolKey = (toolCode: string, args: string) => `${toolCodeKey(toolCode)}\n${args}`;

/** The turn being replayed and what it needed and did not find. */
class ReplayTurn {
  number = 0;
  missing: MissingRecording[] = [];

  begin(turnNumber: number): void {
    this.number = turnNumber;
    this.missing = [];
  }

  /** Notes the missing answer and refuses the question with an error of `type`. */
  refuse(entry: MissingRecording, type: string): never {
    this.missing.push(entry);
    // Another attempt would look in the same recording.
    throw new EngineError(type, `what-if: ${entry.kind} answer never recorded (${entry.what})`, {
      retryable: false,
      details: { reason: NOT_RECORDED },
    });
  }
}

/** The model: the recorded reply to the same kind of call with the same prompt. */
function llmFeed(recording: Recording, normalise: (text: string) => string, turn: ReplayTurn): LlmClient {
  const answers = new AnswerBook<{ turnNumber: number | null; response: string }>();
  for (const call of recording.llmCalls) answers.add(llmKey(call.kind, normalise(call.prompt)), call);
  const answer = (req: LlmRequest): string => {
    const prompt = normalise(`${req.systemPrompt}\n\n${req.userPrompt}`);
    const found = answers.take(llmKey(req.kind, prompt), turn.number);
    if (found) return found.response;
    return turn.refuse(
      { kind: 'model', what: `${req.kind} call, prompt sha256 ${sha(prompt).slice(0, 16)}` },
      ErrorType.LlmCallFailed
    );
  };
  return {
    generateText: async (req) => answer(req),
    generateJson: async (req): Promise<LlmJsonResult> => jsonResult(answer(req), req.schema),
  };
}

/** Every tool: the recorded outcome of the same tool called with the same arguments. */
function toolFeed(recording: Recording, normalise: (text: string) => string, turn: ReplayTurn): ToolHandler {
  const tools = new AnswerBook<RecordedToolCall>();
  for (const call of recording.toolCalls) tools.add(toolKey(call.toolCode, normalise(canonicalJson(call.args))), call);
  return async (ctx): Promise<Json> => {
    const args = normalise(canonicalJson(ctx.args));
    const found = tools.take(toolKey(ctx.toolCode, args), turn.number);
    if (!found) return turn.refuse({ kind: 'tool', what: `${ctx.toolCode} ${args}` }, ErrorType.ToolExecutionFailed);
    if (found.outcome.ok) return found.outcome.result;
    // The recording holds the call's final outcome, whatever its type: its retries are already in it (the replay
    // makes one attempt). Retryable as recorded: a direct call holds for an operator only on a retryable failure.
    throw new EngineError(found.outcome.type, found.outcome.error, { retryable: found.outcome.retryable ?? false });
  };
}

export function replayFeeds(recording: Recording, normalise: (text: string) => string): ReplayFeeds {
  const turn = new ReplayTurn();
  return {
    llm: llmFeed(recording, normalise, turn),
    toolHandler: toolFeed(recording, normalise, turn),
    async approve(request) {
      const decision = recordedDecision(recording.approvals, turn.number, request);
      if (decision) return { decision: decision.decision, reason: decision.reason, decidedBy: decision.decidedBy };
      turn.missing.push({ kind: 'approval', what: `${request.toolCode} ${normalise(canonicalJson(request.args))}` });
      return { decision: 'REJECTED', reason: 'what-if: no recorded decision', decidedBy: null };
    },
    async decideHeldTool(request) {
      const decision = recordedHold(recording.holds, turn.number, request);
      if (decision) return decision.resolution;
      turn.missing.push({
        kind: 'operator',
        what: `${request.toolCode} call ${request.callIndex} hold ${request.hold}`,
      });
      return null;
    },
    beginTurn: (turnNumber) => turn.begin(turnNumber),
    missing: () => [...turn.missing],
  };
}

function recordedDecision(
  approvals: readonly RecordedApproval[],
  turnNumber: number,
  request: ApprovalRequest
): RecordedApproval | undefined {
  const mine = approvals.filter(
    (a) => a.turnNumber === turnNumber && toolCodeKey(a.toolCode) === toolCodeKey(request.toolCode)
  );
  return mine.find((a) => a.callIndex === request.callIndex) ?? mine[0];
}

/** This turn's decision on the same hold of the same tool, the same call first (the draft may number calls anew). */
function recordedHold(
  holds: readonly RecordedHoldDecision[],
  turnNumber: number,
  request: HeldToolRequest
): RecordedHoldDecision | undefined {
  const mine = holds.filter(
    (h) =>
      h.turnNumber === turnNumber &&
      toolCodeKey(h.toolCode) === toolCodeKey(request.toolCode) &&
      (h.hold ?? 1) === request.hold
  );
  return mine.find((h) => h.callIndex === request.callIndex) ?? mine[0];
}
