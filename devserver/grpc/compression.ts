/**
 * sdk-core gzips every request by default (our workers opt out: TEMPORAL_GRPC_COMPRESSION, worker/worker.ts;
 * other SDK workers pointed at the dev server do not). On loopback that is pure cost: grpc-js inflates each
 * message through an async zlib stream, which measured ~0.75 ms of CPU per activity. Core has a
 * documented fallback: when GetSystemInfo fails with UNIMPLEMENTED mentioning "grpc-encoding", it
 * reconnects without compression. So the dev server declines gzip on GetSystemInfo only, and
 * inflates gzip on other methods synchronously (other clients that insist on gzip still work).
 *
 * grpc-js has no public hook for this; the patch applies only when the internal method it
 * replaces exists, and otherwise leaves grpc-js untouched (compression then simply costs CPU).
 */
import * as zlib from 'node:zlib';
import * as grpc from '@grpc/grpc-js';

const GET_SYSTEM_INFO_PATH = '/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo';

interface InterceptingCallPrototype {
  decompressMessage?: (this: { handler?: { path?: string } }, message: Buffer, encoding: string) => unknown;
  __convengineDeclinesGzip?: boolean;
}

function interceptingCallPrototype(): InterceptingCallPrototype | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- grpc-js internals, feature-detected below
    const internals = require('@grpc/grpc-js/build/src/server-interceptors') as {
      BaseServerInterceptingCall?: { prototype: InterceptingCallPrototype };
    };
    return internals.BaseServerInterceptingCall?.prototype;
  } catch {
    return undefined;
  }
}

export function declineRequestCompression(): void {
  const prototype = interceptingCallPrototype();
  const original = prototype?.decompressMessage;
  if (!prototype || !original || prototype.__convengineDeclinesGzip) return;
  prototype.__convengineDeclinesGzip = true;
  prototype.decompressMessage = function (message: Buffer, encoding: string): unknown {
    if (encoding !== 'gzip') return original.call(this, message, encoding);
    if (this.handler?.path === GET_SYSTEM_INFO_PATH) {
      return Promise.reject({
        code: grpc.status.UNIMPLEMENTED,
        details: 'grpc-encoding gzip is not accepted by the ConvEngine dev server; send uncompressed requests',
      });
    }
    try {
      return zlib.gunzipSync(message.subarray(5));
    } catch {
      return Promise.reject({ code: grpc.status.INTERNAL, details: 'Failed to decompress message' });
    }
  };
}
