import * as grpc from '@grpc/grpc-js';
import { Connection, NamespaceNotFoundError, type ConnectionOptions } from '@temporalio/client';
import { google } from '@temporalio/proto';
import { unreachable, type TemporalConnectionSettings } from './temporal-connection';
import { closeSafeRetryInterceptor } from './temporal-retry';

/**
 * The client options (API, CLI commands) for `settings`: address, TLS and API key, and the SDK's retry of a failed
 * call made safe to close the connection under (closeSafeRetryInterceptor).
 */
export function clientConnectionOptions(
  settings: TemporalConnectionSettings,
  extra: Pick<ConnectionOptions, 'connectTimeout'> = {}
): ConnectionOptions {
  return {
    address: settings.address,
    ...(settings.tls ? { tls: settings.tls } : {}),
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
    interceptors: [closeSafeRetryInterceptor()],
    ...extra,
  };
}

/** A client connection to the cluster `settings` names; a failure is a TemporalUnreachableError. */
export function connectTemporalClient(
  settings: TemporalConnectionSettings,
  extra: Pick<ConnectionOptions, 'connectTimeout'> = {}
): Promise<Connection> {
  return Connection.connect(clientConnectionOptions(settings, extra)).catch((err: unknown) => {
    throw unreachable(settings, err);
  });
}

/**
 * gRPC statuses of a server that is down, still starting, or not answering in time (not of a refused request); the
 * native connection's CANCELLED at its deadline too (NATIVE_DEADLINE).
 */
const UNREACHABLE_CODES: ReadonlySet<number> = new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]);
/** grpc-js's waitForReady error (the SDK's connect): no code, only this text. */
const NO_CONNECTION_YET = 'Failed to connect before the deadline';
/**
 * The native connection's (sdk-core's) deadline: CANCELLED with this text, where the client's connection says
 * DEADLINE_EXCEEDED. A CANCELLED without it is a call someone cancelled, not a server that did not answer.
 */
const NATIVE_DEADLINE = 'Timeout expired';

function unreachableCode(code: number, err: Error): boolean {
  if (code === grpc.status.CANCELLED) return err.message.endsWith(NATIVE_DEADLINE);
  return UNREACHABLE_CODES.has(code);
}

/**
 * Whether a client call failed because the server could not be reached (down, or not up yet): the first error with a
 * gRPC code in the chain decides, whether the SDK wraps it (ServiceError, a failed start) or not. Any other refusal
 * (UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND, ...) is an answer from a reachable server.
 */
export function isTemporalUnreachable(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number') return unreachableCode(code, e);
    if (e.message === NO_CONNECTION_YET) return true;
  }
  return false;
}

const NAMESPACE_NOT_FOUND_FAILURE = 'temporal.api.errordetails.v1.NamespaceNotFoundFailure';

/** The type names of a gRPC error's status details (`grpc-status-details-bin`), empty when it has none. */
function statusDetailTypes(err: Error): string[] {
  const bin = (err as { metadata?: { get?(key: string): unknown[] } }).metadata?.get?.('grpc-status-details-bin')?.[0];
  if (!(bin instanceof Uint8Array)) return [];
  return google.rpc.Status.decode(bin).details.map((d) => d.type_url ?? '');
}

/**
 * Whether a call failed because the namespace does not exist (`convengine setup-temporal` has not run): the client's
 * NamespaceNotFoundError, a raw service call's NOT_FOUND carrying a NamespaceNotFoundFailure, or the worker's native
 * connection error, whose text holds the server's status with that failure in it.
 */
export function isNamespaceNotFound(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof NamespaceNotFoundError || e.message.includes(NAMESPACE_NOT_FOUND_FAILURE)) return true;
    const code = (e as { code?: unknown }).code;
    if (code === grpc.status.NOT_FOUND)
      return statusDetailTypes(e).some((t) => t.endsWith(NAMESPACE_NOT_FOUND_FAILURE));
  }
  return false;
}
