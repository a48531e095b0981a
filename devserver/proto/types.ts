/**
 * Shapes of the Temporal API messages as the dev server holds them: the output of protobufjs
 * `toObject(decode(b), { longs: Number })`, i.e. enums as numbers, int64 as numbers and bytes as
 * Buffers. Responses are built in the same shape and encoded directly with `Type.encode`, which
 * accepts such plain objects without a `fromObject` copy.
 *
 * Only the fields the server reads are typed; everything else passes through untouched.
 */
import { temporal } from '@temporalio/proto';

export const enums = temporal.api.enums.v1;
export type EventType = temporal.api.enums.v1.EventType;
export type CommandType = temporal.api.enums.v1.CommandType;
export type WorkflowExecutionStatus = temporal.api.enums.v1.WorkflowExecutionStatus;
export type RetryState = temporal.api.enums.v1.RetryState;
export type TimeoutType = temporal.api.enums.v1.TimeoutType;
export type WorkflowTaskFailedCause = temporal.api.enums.v1.WorkflowTaskFailedCause;
export type IndexedValueType = temporal.api.enums.v1.IndexedValueType;

export type Bytes = Uint8Array;

export interface Payload {
  metadata?: Record<string, Bytes>;
  data?: Bytes;
  [other: string]: unknown;
}

export interface Payloads {
  payloads?: Payload[];
}

export interface Header {
  fields?: Record<string, Payload>;
}

export interface Memo {
  fields?: Record<string, Payload>;
}

export interface SearchAttributes {
  indexedFields?: Record<string, Payload>;
}

/** google.protobuf.Duration / Timestamp: both are {seconds, nanos}. */
export interface Duration {
  seconds?: number;
  nanos?: number;
}
export type Timestamp = Duration;

export interface TaskQueueRef {
  name?: string;
  kind?: number;
  normalName?: string;
}

export interface WorkflowExecutionRef {
  workflowId?: string;
  runId?: string;
}

export interface RetryPolicy {
  initialInterval?: Duration;
  backoffCoefficient?: number;
  maximumInterval?: Duration;
  maximumAttempts?: number;
  nonRetryableErrorTypes?: string[];
}

export interface Failure {
  message?: string;
  source?: string;
  stackTrace?: string;
  cause?: Failure;
  applicationFailureInfo?: {
    type?: string;
    nonRetryable?: boolean;
    details?: Payloads;
    nextRetryDelay?: Duration;
    category?: number;
  };
  timeoutFailureInfo?: { timeoutType?: TimeoutType; lastHeartbeatDetails?: Payloads };
  [other: string]: unknown;
}

/** Attributes are kept under their wire key (`activityTaskScheduledEventAttributes`, ...). */
export interface HistoryEvent {
  eventId: number;
  eventTime: Timestamp;
  eventType: EventType;
  taskId: number;
  [attributes: `${string}EventAttributes`]: Record<string, unknown> | undefined;
}

/** A protocol message (updates) with its `google.protobuf.Any` body. */
export interface ProtocolMessage {
  id?: string;
  protocolInstanceId?: string;
  eventId?: number;
  commandIndex?: number;
  body?: { type_url?: string; value?: Bytes };
}

export interface UpdateRequest {
  meta?: { updateId?: string; identity?: string };
  input?: { header?: Header; name?: string; args?: Payloads };
  [other: string]: unknown;
}

export interface UpdateOutcome {
  success?: Payloads;
  failure?: Failure;
}

/** Any other message: fields are passed through to events or responses as they came. */
export type Message = Record<string, unknown>;
