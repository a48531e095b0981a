import { loadEnv } from '../../config/env';
import { startWorkerFromEnv } from '../../worker/main';
import type { CliCommand } from '../command';
import { checkRoundTrip } from '../doctor/checks';

export const workerCommand: CliCommand = {
  name: 'worker',
  summary: 'Run a Temporal worker for conversation turns (TEMPORAL_ADDRESS, DATABASE_URL, ANTHROPIC_*).',
  usage: [
    'convengine worker [--check]',
    '',
    'Polls TEMPORAL_TASK_QUEUE in TEMPORAL_NAMESPACE on TEMPORAL_ADDRESS and runs the turn workflow and',
    'every step and tool activity. SIGTERM/SIGINT drain in-flight tasks before exiting.',
    '--check first times one activity round trip on the server (as `convengine doctor` does) and warns',
    'when it is above 30 ms; the worker starts either way.',
  ].join('\n'),
  async run(args, io) {
    const check = args.includes('--check');
    const unexpected = args.filter((a) => a !== '--check');
    if (unexpected.length > 0) {
      io.err(`worker: unexpected argument(s): ${unexpected.join(' ')}`);
      return 2;
    }
    const env = loadEnv();
    if (check && env.TEMPORAL_ADDRESS) {
      const finding = await checkRoundTrip(env.TEMPORAL_ADDRESS, env.TEMPORAL_NAMESPACE);
      (finding.level === 'ok' ? io.out : io.err)(`${finding.level} round-trip ${finding.message}`);
    }
    const worker = await startWorkerFromEnv(env);
    io.out(
      `worker polling ${env.TEMPORAL_TASK_QUEUE} on ${env.TEMPORAL_ADDRESS} (namespace ${env.TEMPORAL_NAMESPACE})`
    );
    await worker.done;
    return 0;
  },
};
