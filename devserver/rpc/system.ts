/** Connection and worker start-up RPCs: system info, namespaces, cluster info, task queue description, search attribute keys. */
import { DevServerError, invalidArgument, requireString } from '../errors';
import { msToDuration, msToTimestamp } from '../proto/time';
import { enums, type Message } from '../proto/types';
import type { Engine } from '../engine/engine';
import { indexedValueType, SYSTEM_SEARCH_ATTRIBUTES } from '../engine/search-attributes';
import type { RpcHandler } from '../grpc/service';

export const SERVER_VERSION = '1.28.0';

export function describeNamespaceResponse(engine: Engine): Message {
  return {
    namespaceInfo: {
      name: engine.namespace,
      state: enums.NamespaceState.NAMESPACE_STATE_REGISTERED,
      description: 'ConvEngine dev server namespace',
      id: engine.namespaceId,
      // No namespace capabilities on purpose: each one switches sdk-core to newer code paths.
    },
    config: {
      workflowExecutionRetentionTtl: msToDuration(engine.retentionMs),
      historyArchivalState: enums.ArchivalState.ARCHIVAL_STATE_DISABLED,
      visibilityArchivalState: enums.ArchivalState.ARCHIVAL_STATE_DISABLED,
    },
    replicationConfig: { activeClusterName: 'active', clusters: [{ clusterName: 'active' }] },
    isGlobalNamespace: false,
  };
}

function describeNamespace(engine: Engine, request: Message): Message {
  const name = request.namespace as string | undefined;
  const id = request.id as string | undefined;
  if (!name && !id) throw invalidArgument('Namespace not set on request.');
  if ((name && name !== engine.namespace) || (id && id !== engine.namespaceId)) {
    const namespace = name ?? id ?? '';
    throw new DevServerError('NOT_FOUND', `Namespace ${namespace} is not found.`, {
      typeName: 'temporal.api.errordetails.v1.NamespaceNotFoundFailure',
      message: { namespace },
    });
  }
  return describeNamespaceResponse(engine);
}

function systemInfo(engine: Engine): Message {
  return {
    serverVersion: SERVER_VERSION,
    capabilities: {
      signalAndQueryHeader: true,
      internalErrorDifferentiation: true,
      activityFailureIncludeHeartbeat: true,
      supportsSchedules: false,
      encodedFailureAttributes: true,
      buildIdBasedVersioning: false,
      upsertMemo: true,
      eagerWorkflowStart: engine.eagerWorkflowStart,
      sdkMetadata: true,
      countGroupByExecutionStatus: true,
      nexus: false,
    },
  };
}

function describeTaskQueue(engine: Engine, request: Message): Message {
  const taskQueue = request.taskQueue as { name?: string } | undefined;
  const name = requireString(taskQueue?.name, 'TaskQueue');
  const type = request.taskQueueType === enums.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY ? 'activity' : 'workflow';
  return {
    pollers: engine.matching.pollers(type, name).map((p) => ({
      identity: p.identity,
      lastAccessTime: msToTimestamp(p.lastAccessTime),
      ratePerSecond: 100_000,
    })),
  };
}

export function searchAttributeKeys(engine: Engine): Record<string, number> {
  const keys: Record<string, number> = {};
  for (const [name, type] of Object.entries(SYSTEM_SEARCH_ATTRIBUTES)) keys[name] = indexedValueType(type);
  for (const [name, type] of engine.searchAttributes.custom) keys[name] = indexedValueType(type);
  return keys;
}

export function systemHandlers(engine: Engine, persistence: string): Record<string, RpcHandler> {
  return {
    GetSystemInfo: () => systemInfo(engine),
    DescribeNamespace: (request) => describeNamespace(engine, request),
    ListNamespaces: () => ({ namespaces: [describeNamespaceResponse(engine)] }),
    RegisterNamespace: (request) => {
      if (request.namespace === engine.namespace) {
        throw new DevServerError('ALREADY_EXISTS', `Namespace ${engine.namespace} already exists.`);
      }
      throw new DevServerError(
        'UNIMPLEMENTED',
        `The ConvEngine dev server serves a single namespace, ${engine.namespace}, and cannot create another ` +
          '(start it with --namespace to serve a different one).'
      );
    },
    GetClusterInfo: () => ({
      supportedClients: {},
      serverVersion: SERVER_VERSION,
      clusterId: engine.namespaceId,
      clusterName: 'active',
      historyShardCount: 1,
      persistenceStore: persistence,
      visibilityStore: 'memory',
    }),
    GetSearchAttributes: () => ({ keys: searchAttributeKeys(engine) }),
    DescribeTaskQueue: (request) => describeTaskQueue(engine, request),
    RecordWorkerHeartbeat: () => ({}),
  };
}
