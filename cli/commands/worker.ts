import { loadEnv } from '../../config/env';
import { startWorkerFromEnv } from '../../worker/main';
import type { CliCommand } from '../command';

export const workerCommand: CliCommand = {
  name: 'worker',
  summary: 'Run a Temporal worker for conversation turns (TEMPORAL_ADDRESS, DATABASE_URL, ANTHROPIC_*).',
  usage: [
    'convengine worker',
    '',
    'Polls TEMPORAL_TASK_QUEUE in TEMPORAL_NAMESPACE on TEMPORAL_ADDRESS and runs the turn workflow and',
    'every step and tool activity. SIGTERM/SIGINT drain in-flight tasks before exiting.',
  ].join('\n'),
  async run(args, io) {
    if (args.length > 0) {
      io.err(`worker takes no arguments (got: ${args.join(' ')})`);
      return 2;
    }
    const env = loadEnv();
    const worker = await startWorkerFromEnv(env);
    io.out(
      `worker polling ${env.TEMPORAL_TASK_QUEUE} on ${env.TEMPORAL_ADDRESS} (namespace ${env.TEMPORAL_NAMESPACE})`
    );
    await worker.done;
    return 0;
  },
};
