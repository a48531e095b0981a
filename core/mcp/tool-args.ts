import type { ErrorObject, ValidateFunction } from 'ajv';
import type { ConfigSnapshot } from '../config/types';
import type { McpToolRow } from '../config/tool-rows';
import { EngineError, ErrorType } from '../errors';
import { canonicalJson, type Json, type JsonObject } from '../json';
import { compileConfigSchema } from '../json-schema';
import { toolInputSchema } from './tool-input-schema';

/**
 * Checks a tool call's arguments against the tool's input schema before anything runs (issue
 * #21). One check for the planner's CALL_TOOL and a request's direct tool_request alike; the
 * executor applies it to every call, so no path reaches a DB or HTTP tool unchecked. Problems
 * name the argument and the rule, never echo the value (it may be the injected text itself).
 */
export const TOOL_ARGS_REJECTED = 'TOOL_ARGS_REJECTED';

/** Whole argument objects larger than this are refused whatever the schema says. */
export const MAX_TOOL_ARGS_CHARS = 32 * 1024;

export type ToolArgsVerdict = { ok: true } | { ok: false; problems: string[]; schema: Json };

function compile(schema: Json): ValidateFunction | string {
  const result = compileConfigSchema(schema);
  return 'validate' in result
    ? result.validate
    : `the tool's input schema is not a valid JSON Schema (${result.invalid})`;
}

function describe(e: ErrorObject): string {
  const where = e.instancePath === '' ? 'args' : `args${e.instancePath.replace(/\//g, '.')}`;
  if (e.keyword === 'additionalProperties') {
    return `${where} has "${String(e.params['additionalProperty'])}", which the tool does not accept`;
  }
  return `${where} ${e.message ?? 'is invalid'}`;
}

export function checkToolArgs(snapshot: ConfigSnapshot, tool: McpToolRow, args: JsonObject): ToolArgsVerdict {
  const schema = toolInputSchema(snapshot, tool);
  const size = canonicalJson(args).length;
  if (size > MAX_TOOL_ARGS_CHARS) {
    return {
      ok: false,
      problems: [`args are ${size} characters; at most ${MAX_TOOL_ARGS_CHARS} are accepted`],
      schema,
    };
  }
  const validate = compile(schema);
  if (typeof validate === 'string') return { ok: false, problems: [validate], schema };
  if (validate(args)) return { ok: true };
  const problems = [...new Set((validate.errors ?? []).map(describe))];
  return { ok: false, problems, schema };
}

/** The error a rejected call fails with; not retryable, since the same arguments fail the same way. */
export function toolArgsRejected(toolCode: string, verdict: { problems: string[]; schema: Json }): EngineError {
  return new EngineError(
    ErrorType.ToolArgsInvalid,
    `Arguments for ${toolCode} do not match its input schema: ${verdict.problems.join('; ')}`,
    { details: { toolCode, problems: verdict.problems, inputSchema: verdict.schema, rejection: TOOL_ARGS_REJECTED } }
  );
}

/** True for the error of toolArgsRejected (the caller audits TOOL_ARGS_REJECTED for it). */
export function isToolArgsRejection(err: unknown): err is EngineError {
  return err instanceof EngineError && err.details?.['rejection'] === TOOL_ARGS_REJECTED;
}

/** Throws toolArgsRejected unless the arguments match; used by the executor in front of every tool. */
export function assertToolArgs(snapshot: ConfigSnapshot, tool: McpToolRow, args: JsonObject): void {
  const verdict = checkToolArgs(snapshot, tool, args);
  if (!verdict.ok) throw toolArgsRejected(tool.toolCode, verdict);
}
