import { WorkflowClient } from '@temporalio/client';
import { loadEnv } from '../../config/env';
import { configuredTemporal } from '../../config/temporal-connection';
import { parseCommandArgs, usageError, type CliCommand } from '../command';
import { formatTimeline } from '../history/timeline';
import { errorChain } from '../error-chain';
import { withTemporalConnection } from '../temporal/connect';

const OPTIONS = { values: ['address', 'namespace', 'run'] };

const USAGE = [
  'convengine history <workflowId> [--address host:port] [--namespace ns] [--run <runId>]',
  '',
  'Activities with their summaries, attempts and failures, guardrail / loop-limit decisions,',
  'timers, search attributes and the outcome. Default address: TEMPORAL_ADDRESS or 127.0.0.1:7233.',
].join('\n');

export const historyCommand: CliCommand = {
  usage: USAGE,
  async run(args, io) {
    const parsed = parseCommandArgs('history', args, OPTIONS);
    if (typeof parsed === 'string') return usageError(io, parsed, USAGE);
    const { positional, options } = parsed;
    const [workflowId] = positional;
    if (!workflowId || positional.length > 1) {
      io.err('history needs exactly one workflow id, e.g. turn-<conversationId>-1');
      return 2;
    }
    const env = loadEnv();
    const temporal = configuredTemporal(env, options.get('address')?.at(-1));
    const namespace = options.get('namespace')?.at(-1) ?? env.TEMPORAL_NAMESPACE;
    const runId = options.get('run')?.at(-1);
    try {
      const history = await withTemporalConnection(temporal, (connection) =>
        new WorkflowClient({ connection, namespace }).getHandle(workflowId, runId).fetchHistory()
      );
      for (const line of formatTimeline(workflowId, history.events ?? [])) io.out(line);
      return 0;
    } catch (err) {
      io.err(`cannot read the history of ${workflowId}: ${errorChain(err)}`);
      return 1;
    }
  },
};
