/**
 * gRPC plumbing: grpc-js service definitions built from the protobufjs root, one wrapper that every
 * handler goes through (malformed input, namespace check, error mapping, never a crash), and the
 * mapping of typed engine errors to gRPC status codes with `google.rpc.Status` details.
 */
import { timingSafeEqual } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { DevServerError, type DevServerErrorType } from '../errors';
import { decodeMessage, EncodedResponse, encodeMessage, packAny, protoType, serviceMethods } from '../proto/codec';
import type { Message } from '../proto/types';
import type { PollCall } from '../engine/matching';

export type RpcHandler = (request: Message, call: PollCall) => unknown;

const STATUS_CODES: Record<DevServerErrorType, grpc.status> = {
  INVALID_ARGUMENT: grpc.status.INVALID_ARGUMENT,
  NOT_FOUND: grpc.status.NOT_FOUND,
  ALREADY_EXISTS: grpc.status.ALREADY_EXISTS,
  FAILED_PRECONDITION: grpc.status.FAILED_PRECONDITION,
  RESOURCE_EXHAUSTED: grpc.status.RESOURCE_EXHAUSTED,
  PERMISSION_DENIED: grpc.status.PERMISSION_DENIED,
  UNAUTHENTICATED: grpc.status.UNAUTHENTICATED,
  UNIMPLEMENTED: grpc.status.UNIMPLEMENTED,
  DEADLINE_EXCEEDED: grpc.status.DEADLINE_EXCEEDED,
  CANCELLED: grpc.status.CANCELLED,
  UNAVAILABLE: grpc.status.UNAVAILABLE,
  INTERNAL: grpc.status.INTERNAL,
};

const RPC_STATUS = protoType('google.rpc.Status');

/** Marks a request whose bytes did not decode; the wrapper answers INVALID_ARGUMENT. */
class MalformedRequest {
  constructor(readonly reason: string) {}
}

function toServiceError(error: DevServerError): Partial<grpc.StatusObject> {
  const code = STATUS_CODES[error.type];
  const metadata = new grpc.Metadata();
  if (error.detail) {
    const status = { code, message: error.message, details: [packAny(error.detail.typeName, error.detail.message)] };
    metadata.set('grpc-status-details-bin', encodeMessage(RPC_STATUS, status));
  }
  return { code, details: error.message, metadata };
}

export interface ServiceOptions {
  /** Namespace requests must name; empty namespace is rejected for these methods. */
  namespace: string;
  requireNamespace: (method: string) => boolean;
  onInternalError: (error: unknown, method: string) => void;
  /** When set, every call must carry `authorization: Bearer <apiKey>`, as Temporal Cloud's API keys do. */
  apiKey?: string;
  /**
   * Makes what a call changed durable, or throws: run before the handler (a call is refused while earlier changes
   * are not written) and before the answer (which must not acknowledge what is not written).
   */
  commit?: () => void;
}

/** The call's bearer token against the server's key, in constant time; a missing or other token is refused. */
function checkApiKey(metadata: grpc.Metadata, apiKey: string): void {
  const expected = Buffer.from(`Bearer ${apiKey}`);
  const [sent] = metadata.get('authorization');
  const given = Buffer.from(typeof sent === 'string' ? sent : '');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new DevServerError('UNAUTHENTICATED', 'Request unauthorized.');
  }
}

/**
 * Calls whose namespace field names the namespace they manage, not the one they run in: their handlers
 * answer for any name (RegisterNamespace of another one is refused as unsupported, not as NOT_FOUND).
 */
const NAMESPACE_MANAGEMENT: ReadonlySet<string> = new Set([
  'DescribeNamespace',
  'RegisterNamespace',
  'UpdateNamespace',
  'DeprecateNamespace',
  'DeleteNamespace',
]);

function checkNamespace(method: string, request: Message, options: ServiceOptions, hasNamespaceField: boolean): void {
  if (NAMESPACE_MANAGEMENT.has(method)) return;
  const namespace = request.namespace;
  if (typeof namespace === 'string' && namespace !== '' && namespace !== options.namespace) {
    throw new DevServerError('NOT_FOUND', `Namespace ${namespace} is not found.`, {
      typeName: 'temporal.api.errordetails.v1.NamespaceNotFoundFailure',
      message: { namespace },
    });
  }
  if (hasNamespaceField && (namespace === undefined || namespace === '') && options.requireNamespace(method)) {
    throw new DevServerError('INVALID_ARGUMENT', 'Namespace not set on request.');
  }
}

function wrap(
  method: string,
  handler: RpcHandler | undefined,
  options: ServiceOptions,
  hasNamespaceField: boolean
): grpc.handleUnaryCall<Message | MalformedRequest, unknown> {
  return (call, callback) => {
    const reply = (outcome: unknown, response?: unknown): void => {
      let error = outcome;
      try {
        options.commit?.();
      } catch (unwritten) {
        error = unwritten;
      }
      if (!error) {
        callback(null, response ?? {});
        return;
      }
      if (!(error instanceof DevServerError)) {
        options.onInternalError(error, method);
        callback({ code: grpc.status.INTERNAL, details: `${method}: ${(error as Error)?.message ?? String(error)}` });
        return;
      }
      callback(toServiceError(error));
    };
    const pollCall: PollCall = {
      isCancelled: () => call.cancelled,
      onCancel: (listener) => {
        call.once('cancelled', listener);
        return () => call.removeListener('cancelled', listener);
      },
    };
    try {
      if (options.apiKey !== undefined) checkApiKey(call.metadata, options.apiKey);
      const request = call.request as Message | MalformedRequest;
      if (request instanceof MalformedRequest)
        throw new DevServerError('INVALID_ARGUMENT', `Malformed ${method} request: ${request.reason}`);
      if (!handler)
        throw new DevServerError('UNIMPLEMENTED', `${method} is not implemented by the ConvEngine dev server`);
      checkNamespace(method, request, options, hasNamespaceField);
      options.commit?.();
      const result = handler(request, pollCall);
      if (result instanceof Promise)
        result.then(
          (response: unknown) => reply(null, response),
          (error: unknown) => reply(error)
        );
      else reply(null, result);
    } catch (error) {
      reply(error);
    }
  };
}

/** Service definition + implementation for every method of `serviceName`; methods without a handler answer UNIMPLEMENTED. */
export function buildService(
  serviceName: string,
  handlers: Record<string, RpcHandler>,
  options: ServiceOptions
): { definition: grpc.ServiceDefinition; implementation: grpc.UntypedServiceImplementation } {
  const definition: Record<string, grpc.MethodDefinition<Message | MalformedRequest, unknown>> = {};
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const method of serviceMethods(serviceName)) {
    const { requestType, responseType } = method;
    definition[method.name] = {
      path: method.path,
      requestStream: false,
      responseStream: false,
      requestSerialize: (message: Message | MalformedRequest) => encodeMessage(requestType, message),
      requestDeserialize: (bytes: Buffer) => {
        try {
          return decodeMessage(requestType, bytes);
        } catch (error) {
          return new MalformedRequest((error as Error).message);
        }
      },
      responseSerialize: (message: unknown) =>
        message instanceof EncodedResponse ? message.bytes : encodeMessage(responseType, message as Message),
      responseDeserialize: (bytes: Buffer) => decodeMessage(responseType, bytes),
    };
    implementation[method.name] = wrap(method.name, handlers[method.name], options, 'namespace' in requestType.fields);
  }
  return { definition: definition as grpc.ServiceDefinition, implementation };
}
