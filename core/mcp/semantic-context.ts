import { toolCodeKey } from '../config/vocabulary';
import { isJsonObject, type Json, type JsonObject } from '../json';
import type { Session } from '../session';
import { McpStatus, SemanticTool } from './constants';
import type { LifecycleWrite } from './context';
import { childObject, mcpContext, readMcp } from './mcp-node';

/**
 * `context.mcp.semantic`: where the semantic query chain (interpret → query → postgres.query)
 * stands, what each tool returned, and whether the user owes a clarification. Rules and response
 * templates read it (`context.mcp.semantic.clarification.signal`).
 */
export const SEMANTIC_CHAIN = `${SemanticTool.interpret}->${SemanticTool.query}->${SemanticTool.postgres}`;
export const CLARIFICATION_REASON = 'SEMANTIC_QUERY_AMBIGUITY';

export function isSemanticTool(toolCode: string | null | undefined): boolean {
  const code = (toolCode ?? '').trim().toLowerCase();
  return code === SemanticTool.interpret || code === SemanticTool.query || code === SemanticTool.postgres;
}

export function semanticStage(toolCode: string | null | undefined): string {
  const code = (toolCode ?? '').trim().toLowerCase();
  if (code === SemanticTool.interpret) return 'INTERPRET';
  if (code === SemanticTool.query) return 'QUERY';
  if (code === SemanticTool.postgres) return 'POSTGRES_EXECUTE';
  return 'UNKNOWN';
}

function toolKey(toolCode: string): string {
  return { INTERPRET: 'interpret', QUERY: 'query', POSTGRES_EXECUTE: 'postgres' }[semanticStage(toolCode)] ?? 'other';
}

/** Mirrors a lifecycle write into `semantic.pipeline` once the turn has touched the semantic chain. */
export function writeSemanticPipeline(mcp: JsonObject, w: LifecycleWrite): void {
  if (!isSemanticTool(w.lastToolCode) && !isJsonObject(mcp['semantic'])) return;
  const semantic = childObject(mcp, 'semantic');
  semantic['pipeline'] = {
    enabled: true,
    chain: SEMANTIC_CHAIN,
    lastAction: w.lastAction ?? '',
    lastToolCode: w.lastToolCode ?? '',
    lastStatus: w.status,
    lastOutcome: w.outcome,
    lastError: w.errorMessage ?? '',
    stage: semanticStage(w.lastToolCode),
  };
  if (w.lastToolCode && isSemanticTool(w.lastToolCode)) {
    const tool = childObject(childObject(semantic, 'tools'), toolKey(w.lastToolCode));
    tool['lastSeen'] = true;
    tool['lastStatus'] = w.status;
    tool['lastOutcome'] = w.outcome;
    tool['error'] = w.errorMessage ?? '';
  }
}

function field(result: Json, key: string): Json | undefined {
  if (!isJsonObject(result)) return undefined;
  if (result[key] !== undefined) return result[key];
  const meta = result['meta'];
  return isJsonObject(meta) ? meta[key] : undefined;
}

function isUnsupported(result: Json): boolean {
  return field(result, 'operationSupported') === false || field(result, 'unsupported') === true;
}

/** What a successful semantic tool result says about the chain: stop for clarification or unsupported. */
export interface SemanticSignal {
  clarificationQuestion: string | null;
  unsupportedMessage: string | null;
}

export function semanticSignal(toolCode: string, result: Json): SemanticSignal {
  const none = { clarificationQuestion: null, unsupportedMessage: null };
  const code = toolCodeKey(toolCode);
  if (code !== SemanticTool.interpret && code !== SemanticTool.query) return none;
  if (isUnsupported(result)) {
    const message = field(result, 'unsupportedMessage');
    return {
      clarificationQuestion: null,
      unsupportedMessage: typeof message === 'string' && message.trim() ? message : null,
    };
  }
  const ambiguities = field(result, 'ambiguities');
  for (const item of Array.isArray(ambiguities) ? ambiguities : []) {
    if (
      isJsonObject(item) &&
      String(item['code'] ?? '')
        .toUpperCase()
        .includes('UNSUPPORTED')
    ) {
      const message = typeof item['message'] === 'string' && item['message'].trim() ? item['message'] : null;
      return {
        clarificationQuestion: null,
        unsupportedMessage: message ?? 'This operation is not supported for current filters.',
      };
    }
  }
  const question = field(result, 'clarificationQuestion');
  if (field(result, 'needsClarification') === true && typeof question === 'string' && question.trim()) {
    return { clarificationQuestion: question, unsupportedMessage: null };
  }
  return none;
}

/** Records a successful semantic tool result under `semantic.tools.<interpret|query|postgres>`. */
export function writeSemanticToolResult(session: Session, toolCode: string, result: Json): void {
  if (!isSemanticTool(toolCode)) return;
  const semantic = childObject(mcpContext(session), 'semantic');
  const tool = childObject(childObject(semantic, 'tools'), toolKey(toolCode));
  tool['completed'] = true;
  tool['stage'] = semanticStage(toolCode);
  tool['lastStatus'] = McpStatus.ToolResult;
  for (const key of ['confidence', 'needsClarification', 'operationSupported', 'unsupported', 'rowCount']) {
    const value = field(result, key);
    if (value !== undefined) tool[key] = value;
  }
  const compiled = isJsonObject(result) ? result['compiledSql'] : undefined;
  if (compiled !== undefined) tool['compiledSql'] = compiled;
  const unsupported = isUnsupported(result);
  semantic['operationSupported'] = !unsupported;
}

function writeClarification(session: Session, values: JsonObject, flags: JsonObject): void {
  const semantic = childObject(mcpContext(session), 'semantic');
  const clarification = childObject(semantic, 'clarification');
  Object.assign(clarification, values);
  Object.assign(semantic, flags);
}

export function writeClarificationRequired(session: Session, toolCode: string, question: string): void {
  writeClarification(
    session,
    {
      required: true,
      resolved: false,
      reason: CLARIFICATION_REASON,
      question,
      sourceTool: toolCode,
      signal: 'CLARIFICATION_REQUIRED',
    },
    { semanticClarificationRequired: true, semanticUnsupported: false, semanticQueryAmbiguity: true }
  );
}

export function writeUnsupported(session: Session, toolCode: string, message: string): void {
  writeClarification(
    session,
    {
      required: false,
      resolved: false,
      reason: 'SEMANTIC_UNSUPPORTED',
      question: '',
      sourceTool: toolCode,
      signal: 'UNSUPPORTED',
    },
    {
      semanticClarificationRequired: false,
      semanticUnsupported: true,
      operationSupported: false,
      unsupported: true,
      unsupportedMessage: message,
      semanticQueryAmbiguity: false,
    }
  );
}

export function markClarificationResolved(session: Session): void {
  writeClarification(session, { resolved: true, required: false, signal: 'NONE' }, { semanticQueryAmbiguity: false });
}

function isSemanticReason(value: unknown): boolean {
  return typeof value === 'string' && value.toUpperCase() === CLARIFICATION_REASON;
}

/**
 * A semantic clarification is outstanding: the session's pending clarification is a semantic one,
 * or — when an earlier step of this turn already cleared it (a classifier match does) — the
 * previous turn left both its persisted copy and the semantic context flag behind.
 */
export function semanticClarificationPending(session: Session): boolean {
  if (session.pendingClarification) return isSemanticReason(session.pendingClarification.reason);
  const persisted = session.context['pending_clarification'];
  if (!isJsonObject(persisted) || !isSemanticReason(persisted['reason'])) return false;
  const semantic = readMcp(session)?.['semantic'];
  const clarification = isJsonObject(semantic) ? semantic['clarification'] : undefined;
  if (!isJsonObject(clarification)) return false;
  return (
    clarification['required'] === true ||
    String(clarification['signal'] ?? '').toUpperCase() === 'CLARIFICATION_REQUIRED'
  );
}
