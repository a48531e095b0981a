/** Worker-side activity RPCs: heartbeats and completions, by task token or by activity ID. */
import { invalidArgument, requireString, taskNotFound } from '../errors';
import type { Failure, Message, Payloads } from '../proto/types';
import { heartbeatActivity, resolveActivity } from './activities';
import type { ActivityOutcome } from './activity-events';
import type { Engine } from './engine';
import { activityById, isOpen, type ActivityState, type RunState } from './state';
import { parseTaskToken } from './tokens';

interface Located {
  run: RunState;
  activity: ActivityState;
}

/** The started attempt a token names; NOT_FOUND once that attempt is over. */
function byToken(engine: Engine, tokenBytes: Uint8Array | undefined): Located {
  const token = parseTaskToken(tokenBytes);
  if (token.kind !== 'activity') throw invalidArgument('Not an activity task token.');
  const run = engine.runs.get(token.runId);
  const activity = run?.activities[token.scheduledEventId];
  if (!run || !activity || !isOpen(run) || activity.stage !== 'STARTED' || activity.attempt !== token.attempt) {
    throw taskNotFound('Activity task');
  }
  return { run, activity };
}

interface ByIdRequest {
  workflowId?: string;
  runId?: string;
  activityId?: string;
}

function byId(engine: Engine, request: ByIdRequest): Located {
  const workflowId = requireString(request.workflowId, 'WorkflowId');
  const activityId = requireString(request.activityId, 'ActivityId');
  const run = engine.requireRun({ workflowId, runId: request.runId });
  const activity = isOpen(run) ? activityById(run, activityId) : undefined;
  if (!activity || activity.stage !== 'STARTED') throw taskNotFound('Activity task');
  return { run, activity };
}

interface HeartbeatRequest extends ByIdRequest {
  taskToken?: Uint8Array;
  details?: Payloads;
}

function heartbeat(engine: Engine, { run, activity }: Located, details: Payloads | undefined): Message {
  return { ...engine.transact(() => heartbeatActivity(engine, run, activity, details)) };
}

export function recordActivityTaskHeartbeat(engine: Engine, request: HeartbeatRequest): Message {
  return heartbeat(engine, byToken(engine, request.taskToken), request.details);
}

export function recordActivityTaskHeartbeatById(engine: Engine, request: HeartbeatRequest): Message {
  return heartbeat(engine, byId(engine, request), request.details);
}

interface RespondRequest extends ByIdRequest {
  taskToken?: Uint8Array;
  identity?: string;
  result?: Payloads;
  failure?: Failure;
  lastHeartbeatDetails?: Payloads;
  details?: Payloads;
}

function outcomeOf(kind: ActivityOutcome['kind'], request: RespondRequest): ActivityOutcome {
  if (kind === 'completed') return { kind, result: request.result };
  if (kind === 'canceled') return { kind, details: request.details };
  return { kind, failure: request.failure, lastHeartbeatDetails: request.lastHeartbeatDetails };
}

export function respondActivityTask(
  engine: Engine,
  kind: ActivityOutcome['kind'],
  request: RespondRequest,
  addressedById: boolean
): Message {
  const located = addressedById ? byId(engine, request) : byToken(engine, request.taskToken);
  engine.transact(() =>
    resolveActivity(engine, located.run, located.activity, outcomeOf(kind, request), request.identity)
  );
  return {};
}
