import { isJsonObject, type JsonObject } from '../json';

export type PendingActionStatus = 'OPEN' | 'IN_PROGRESS' | 'EXECUTED' | 'REJECTED' | 'EXPIRED';
const TERMINAL: readonly string[] = ['EXECUTED', 'REJECTED', 'EXPIRED'];

export interface LifecycleClock {
  turn: number;
  nowMs: number;
  ttlTurns: number;
  ttlMinutes: number;
}

export interface LifecycleEvent {
  event: PendingActionStatus;
  payload: JsonObject;
}

export function runtimeOf(context: JsonObject): JsonObject {
  const raw = context['pending_action_runtime'];
  return isJsonObject(raw) ? { ...raw } : {};
}

function isExpired(runtime: JsonObject, clock: LifecycleClock): boolean {
  const turn = runtime['expires_turn'];
  const at = runtime['expires_at_epoch_ms'];
  const byTurn = typeof turn === 'number' && turn >= 0 && clock.turn >= turn;
  const byTime = typeof at === 'number' && at >= 0 && clock.nowMs >= at;
  return byTurn || byTime;
}

/** Expires an OPEN/IN_PROGRESS runtime past its TTL (turns or minutes). */
export function expireRuntime(runtime: JsonObject, clock: LifecycleClock): LifecycleEvent | null {
  const status = runtime['status'];
  if ((status !== 'OPEN' && status !== 'IN_PROGRESS') || !isExpired(runtime, clock)) return null;
  runtime['status'] = 'EXPIRED';
  runtime['expired_turn'] = clock.turn;
  runtime['expired_at_epoch_ms'] = clock.nowMs;
  return { event: 'EXPIRED', payload: { event: 'EXPIRED', status: 'EXPIRED', turn: clock.turn } };
}

/** Opens a runtime for a new (or changed, or finished) action reference. */
export function openRuntimeIfNew(
  runtime: JsonObject,
  actionKey: string | null,
  actionRef: string,
  clock: LifecycleClock
): LifecycleEvent | null {
  const same =
    runtime['action_ref'] === actionRef &&
    (runtime['action_key'] ?? '') === (actionKey ?? '') &&
    typeof runtime['status'] === 'string' &&
    !TERMINAL.includes(runtime['status']);
  if (same) return null;
  Object.assign(runtime, {
    action_key: actionKey ?? '',
    action_ref: actionRef,
    status: 'OPEN',
    created_turn: clock.turn,
    created_at_epoch_ms: clock.nowMs,
    expires_turn: clock.ttlTurns > 0 ? clock.turn + clock.ttlTurns : -1,
    expires_at_epoch_ms: clock.ttlMinutes > 0 ? clock.nowMs + clock.ttlMinutes * 60_000 : -1,
  });
  return { event: 'OPEN', payload: { event: 'OPEN', status: 'OPEN', actionKey, actionRef } };
}

/** Moves the runtime on an execute/reject decision. */
export function applyDecision(
  runtime: JsonObject,
  decision: string,
  clock: LifecycleClock,
  actionKey: string | null,
  actionRef: string
): LifecycleEvent | null {
  const status: PendingActionStatus | null =
    decision === 'EXECUTE_PENDING_ACTION' ? 'IN_PROGRESS' : decision === 'REJECT_PENDING_ACTION' ? 'REJECTED' : null;
  if (!status) return null;
  const prefix = status === 'IN_PROGRESS' ? 'in_progress' : 'rejected';
  Object.assign(runtime, { status, [`${prefix}_turn`]: clock.turn, [`${prefix}_at_epoch_ms`]: clock.nowMs });
  return { event: status, payload: { event: status, status, actionKey, actionRef } };
}
