/**
 * `convengine doctor` on the real server: at the server's defaults the activity round trip is slow
 * enough to warn (the transfer queue is polled 20 times a second), and the warning names both
 * settings; with the shipped dynamic config the same probe is faster than at the defaults.
 */
import { startTemporalCli, type TemporalCliServer } from '../../cli/temporal/server';
import { median, probeActivityRoundTrip } from '../../worker/probe';
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
      activitiesPerRun: 2,
      runs: 1,
    });
    expect(probed.samplesMs).toHaveLength(1);
    expect(probed.msPerActivity).toBeGreaterThan(0);
  });

  // The shared server of `npm run test:temporal` is busy with the other suites, so the comparison runs
  // on an idle server of its own with the same shipped config. The machine is not idle, though: the
  // other suites come and go. So both servers are probed at the same time, round after round, and the
  // medians compared. At the defaults every round trip waits for two transfer-queue polls (~25 ms each
  // on average); whatever load there is, both probes pay it together. Both are probed once untimed
  // first: a server's first workflows are slower, and the shipped one has only just started.
  it('measures the shipped configuration faster than the defaults', async () => {
    const shipped = await startTemporalCli({ binary: temporalCliBinary() });
    try {
      const samples = { shipped: [] as number[], defaults: [] as number[] };
      const probe = (address: string) =>
        probeActivityRoundTrip({
          temporal: localTemporal(address),
          namespace: 'default',
          compression: 'none',
          workflowBundle: {},
          runs: 5,
        });
      await Promise.all([probe(shipped.address), probe(defaults.address)]);
      for (let round = 0; round < 5; round++) {
        const [onShipped, onDefaults] = await Promise.all([probe(shipped.address), probe(defaults.address)]);
        samples.shipped.push(...onShipped.samplesMs);
        samples.defaults.push(...onDefaults.samplesMs);
      }
      expect(median(samples.shipped)).toBeLessThan(median(samples.defaults));
    } finally {
      await shipped.stop();
    }
  });
});
