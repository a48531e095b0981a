/**
 * A real Temporal server that does not serve in time: after a kill -9 a restart of `convengine start --temporal=cli`
 * said only `temporal server start-dev: not ready within 60000 ms`, dropping what the server printed, and the 60 s
 * could not be changed.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { startFailure } from '../../../cli/commands/start';
import { temporalPart } from '../../../cli/stack/temporal-part';
import { temporalCliDir } from '../../../cli/temporal/binary';
import { loadEnv } from '../../../config/env';

const cache = mkdtempSync(join(tmpdir(), 'ce-slow-temporal-'));
const saved = process.env.CONVENGINE_CACHE_DIR;

beforeAll(() => {
  process.env.CONVENGINE_CACHE_DIR = cache;
  // The pinned version, as `installedTemporalCli` checks it; start-dev prints its trouble and never serves.
  mkdirSync(temporalCliDir(), { recursive: true });
  const script = join(temporalCliDir(), 'temporal');
  const lines = [
    '#!/bin/sh',
    'if [ "$1" = "--version" ]; then echo "temporal version 0.0.0-DEV (Server 1.29.1, UI 2.42.1)"; exit 0; fi',
    'echo "time=… level=WARN msg=\\"sqlite: database is locked\\"" >&2',
    'exec sleep 60',
  ];
  writeFileSync(script, lines.join('\n'));
  chmodSync(script, 0o755);
});

afterAll(() => {
  if (saved === undefined) delete process.env.CONVENGINE_CACHE_DIR;
  else process.env.CONVENGINE_CACHE_DIR = saved;
  rmSync(cache, { recursive: true, force: true });
});

test('gives up after TEMPORAL_CLI_READY_TIMEOUT_MS and prints what the server said, and what to do', async () => {
  const failure = await temporalPart({
    env: loadEnv({ TEMPORAL_CLI_READY_TIMEOUT_MS: '1500' }),
    home: cache,
    port: 0,
    mode: 'cli',
    ui: false,
    logger: pino({ level: 'silent' }),
  }).then(
    async (part) => {
      await part.stop();
      throw new Error('the stand-in server served');
    },
    (err: unknown) => err
  );
  const printed = startFailure(failure, 'default').split('\n');
  expect(printed[0]).toBe('ConvEngine failed to start: temporal server start-dev: not ready within 1500 ms');
  expect(printed).toContain("The Temporal server's output:");
  expect(printed).toContain('  time=… level=WARN msg="sqlite: database is locked"');
  expect(printed.at(-1)).toMatch(/raise TEMPORAL_CLI_READY_TIMEOUT_MS .*runbook/);
}, 20_000);

test('TEMPORAL_CLI_READY_TIMEOUT_MS is a number of milliseconds from a second to ten minutes', () => {
  expect(loadEnv({}).TEMPORAL_CLI_READY_TIMEOUT_MS).toBe(60_000);
  for (const bad of ['999', '600001', 'soon']) {
    expect(() => loadEnv({ TEMPORAL_CLI_READY_TIMEOUT_MS: bad })).toThrow(/TEMPORAL_CLI_READY_TIMEOUT_MS/);
  }
});
