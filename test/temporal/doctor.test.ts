/**
 * `convengine doctor` on the real server: at the server's defaults the activity round trip is slow
 * enough to warn (the transfer queue is polled 20 times a second), and the warning names both
 * settings. How much faster the shipped dynamic config is than the defaults is a speed figure, so it
 * lives in `npm run bench` (BENCH_TEMPORAL=cli,cli-defaults), not in a timed test here.
 */
import { startTemporalCli, type TemporalCliServer } from '../../cli/temporal/server';
import { probeActivityRoundTrip } from '../../worker/probe';
import { runConvengine } from '../support/run-cli';
import { temporalCliBinary } from '../support/temporal';
import { localTemporal } from '../../config/temporal-connection';

jest.setTimeout(240_000);

interface Finding {
  check: string;
  level: string;
  message: string;
  msPerActivity?: number;
}

async function roundTrip(address: string, namespace: string, extra: string[] = []): Promise<Finding> {
  const run = await runConvengine(['doctor', '--address', address, '--namespace', namespace, '--json', ...extra], {
    DATABASE_URL: '',
  });
  const findings = run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Finding);
  const found = findings.find((f) => f.check === 'round-trip');
  if (!found) throw new Error(`doctor printed no round trip: ${run.stdout}${run.stderr}`);
  return found;
}

describe('convengine doctor on the real server', () => {
  let defaults: TemporalCliServer;
  beforeAll(async () => {
    defaults = await startTemporalCli({ binary: temporalCliBinary(), serverDefaults: true });
  });
  afterAll(async () => defaults?.stop());

  it('warns at the server defaults, naming both settings, and --strict makes the warning fail', async () => {
    const slow = await roundTrip(defaults.address, 'default');
    expect(slow.level).toBe('warn');
    expect(slow.msPerActivity).toBeGreaterThan(30);
    expect(slow.message).toContain('history.transferProcessorMaxPollRPS');
    expect(slow.message).toContain('system.enableActivityEagerExecution');
    const strict = await runConvengine(
      ['doctor', '--address', defaults.address, '--namespace', 'default', '--strict'],
      {
        DATABASE_URL: '',
      }
    );
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/^warn round-trip/m);
  });

  it.each(['none', 'gzip'] as const)('probes with the worker connection compressed as %s', async (compression) => {
    const probed = await probeActivityRoundTrip({
      temporal: localTemporal(defaults.address),
      namespace: 'default',
      compression,
      workflowBundle: {},
      sealFailureText: false,
      activitiesPerRun: 2,
      runs: 1,
    });
    expect(probed.samplesMs).toHaveLength(1);
    expect(probed.msPerActivity).toBeGreaterThan(0);
  });
});
