/**
 * A bare gRPC client for dev-server-specific tests: plays a fake worker, sends malformed bytes,
 * cancels calls. Uses the same protobufjs root as the server.
 */
import * as grpc from '@grpc/grpc-js';
import { temporal } from '@temporalio/proto';
import { decodeMessage, encodeMessage, serviceMethods, type MethodCodec } from '../../devserver/proto/codec';
import type { Message } from '../../devserver/proto/types';

const WORKFLOW_SERVICE = 'temporal.api.workflowservice.v1.WorkflowService';
const OPERATOR_SERVICE = 'temporal.api.operatorservice.v1.OperatorService';
/** Above the servers' long polls (55–60 s) and below the SDK's 70 s. */
const CALL_DEADLINE_MS = 65_000;

export interface RawCall {
  response: Promise<Message>;
  cancel(): void;
}

export class RawClient {
  private readonly client: grpc.Client;
  readonly methods = new Map<string, MethodCodec>();

  constructor(address: string) {
    this.client = new grpc.Client(address, grpc.credentials.createInsecure());
    for (const method of [...serviceMethods(WORKFLOW_SERVICE), ...serviceMethods(OPERATOR_SERVICE)]) {
      if (!this.methods.has(method.name)) this.methods.set(method.name, method);
    }
  }

  start(method: string, request: Message | Buffer): RawCall {
    const codec = this.methods.get(method);
    if (!codec) throw new Error(`unknown method ${method}`);
    let call: grpc.ClientUnaryCall | undefined;
    const response = new Promise<Message>((resolve, reject) => {
      call = this.client.makeUnaryRequest(
        codec.path,
        (value: Message | Buffer) => (Buffer.isBuffer(value) ? value : encodeMessage(codec.requestType, value)),
        (bytes: Buffer) => decodeMessage(codec.responseType, bytes),
        request,
        new grpc.Metadata(),
        // The real server refuses a long poll without a deadline.
        { deadline: Date.now() + CALL_DEADLINE_MS },
        (error, value) => (error ? reject(error) : resolve(value ?? {}))
      );
    });
    return { response, cancel: () => call?.cancel() };
  }

  call(method: string, request: Message | Buffer): Promise<Message> {
    return this.start(method, request).response;
  }

  close(): void {
    this.client.close();
  }
}

/**
 * One UpdateWorkflowExecution call of update `name` (no arguments) waiting for `stage`, with no client-side
 * retries: the SDK's client retries RESOURCE_EXHAUSTED, and tests need to see it.
 */
export async function rawUpdate(
  server: { address: string; namespace: string },
  update: { workflowId: string; updateId: string; name: string },
  stage: 'ADMITTED' | 'ACCEPTED' | 'COMPLETED'
): Promise<Message> {
  const raw = new RawClient(server.address);
  const stages = temporal.api.enums.v1.UpdateWorkflowExecutionLifecycleStage;
  try {
    return await raw.call('UpdateWorkflowExecution', {
      namespace: server.namespace,
      workflowExecution: { workflowId: update.workflowId },
      request: { meta: { updateId: update.updateId }, input: { name: update.name, args: { payloads: [] } } },
      waitPolicy: { lifecycleStage: stages[`UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_${stage}`] },
    });
  } finally {
    raw.close();
  }
}
