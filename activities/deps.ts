import type { ConfigStore } from '../core/config/store';
import type { LlmClient } from '../core/llm';
import type { TaskRegistry } from '../core/tasks/registry';
import type { Database } from '../db/pool';
import type { AuditGate } from './runtime/audit-gate';
import type { ToolDeps } from './tools/deps';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * Everything activities reach the outside world through. Built once per worker (or per test)
 * and passed to the activity factories; nothing in activities/ opens its own connections.
 * Tool-related fields are added by the MCP/tool modules.
 */
export interface ActivityDeps {
  db: Database;
  configStore: ConfigStore;
  llm: LlmClient;
  clock: Clock;
  /** SET_TASK rules and pending actions run consumer task code from here. */
  tasks: TaskRegistry;
  /**
   * Tool execution: the tools role's SQL pool and parser, HTTP circuit breakers, interceptors,
   * consumer tool handlers. Required: built once, in worker/ (the composition root), never defaulted.
   */
  tools: ToolDeps;
  /** Which audit rows are written (ce_config `AuditService.*`) and the per-process rate limit. */
  audit: AuditGate;
}
