/**
 * `convengine start --temporal-port N` with N taken: an error naming the option, as a taken --port is; only the
 * default port, not asked for, is replaced by a free one. Probing it writes no stray gRPC line on stderr.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onPreferredPort, temporalPart, TemporalPortTakenError } from '../../cli/stack/temporal-part';
import {
  temporalCliDir,
  temporalCliPath,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_UI_VERSION,
} from '../../cli/temporal/binary';
import { freePort } from '../../cli/temporal/server';
import { loadEnv } from '../../config/env';
import { silentLogger } from '../../observability/logger';

describe('the embedded Temporal of convengine start on a taken port', () => {
  let taken: Server;
  let port: number;
  let home: string;
  beforeAll(() => new Promise<void>((resolve) => (taken = createServer().listen(0, '127.0.0.1', resolve))));
  beforeAll(() => void (port = (taken.address() as AddressInfo).port));
  beforeAll(() => void (home = mkdtempSync(join(tmpdir(), 'ce-temporal-port-'))));
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  const start = (portGiven: boolean) =>
    temporalPart({ env: loadEnv({}), home, port, mode: 'embedded', ui: false, logger: silentLogger(), portGiven });

  it('given with --temporal-port: fails naming the option and the port', async () => {
    const err = await start(true).then(
      (part) => part.stop().then(() => new Error(`it started at ${part.value.address}`)),
      (thrown: unknown) => thrown
    );
    expect(err).toBeInstanceOf(TemporalPortTakenError);
    expect((err as Error).message).toContain(`--temporal-port ${port}: address already in use`);
  });

  it('not given: serves on a free port instead, and gRPC writes nothing on stderr', async () => {
    const errors = jest.spyOn(console, 'error');
    try {
      const part = await start(false);
      await part.stop();
      expect(part.value.address).not.toBe(`127.0.0.1:${port}`);
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });
});

describe('given Temporal ports and a clash on a port the server picks itself', () => {
  const clash = () => Promise.reject(new Error('listen tcp 127.0.0.1:7243: bind: address already in use'));

  it('tries once more on the given ports, which are free, instead of blaming one of them', async () => {
    const uiPort = await freePort();
    const tries: boolean[] = [];
    const ports = [
      { option: '--temporal-port', port: 0 },
      { option: '--temporal-ui-port', port: uiPort },
    ];
    const started = await onPreferredPort(ports, true, (free) => {
      tries.push(free);
      return tries.length === 1 ? clash() : Promise.resolve('served');
    });
    expect([started, tries]).toEqual(['served', [false, false]]);
  });

  it('names a given port that is taken, before starting anything', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const uiPort = (taken.address() as AddressInfo).port;
    try {
      const start = jest.fn(() => Promise.resolve('served'));
      await expect(onPreferredPort([{ option: '--temporal-ui-port', port: uiPort }], true, start)).rejects.toThrow(
        `Temporal cannot listen on --temporal-ui-port ${uiPort}: address already in use`
      );
      expect(start).not.toHaveBeenCalled();
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});

/**
 * The real server's Web UI port derived from a given --temporal-port (+ 1000), taken: the error names the
 * --temporal-port the user gave and the derived port, not a --temporal-ui-port never given. The taken port is
 * refused before the server is spawned, so a stand-in binary that only reports the pinned version is enough.
 */
describe('the real server of convengine start with its derived Web UI port taken', () => {
  const saved = process.env['CONVENGINE_CACHE_DIR'];
  let cache: string;
  let taken: Server;
  beforeAll(() => {
    cache = mkdtempSync(join(tmpdir(), 'ce-temporal-cli-'));
    process.env['CONVENGINE_CACHE_DIR'] = cache;
    mkdirSync(temporalCliDir(), { recursive: true });
    const version = `temporal version 0.0.0-DEV (Server ${TEMPORAL_SERVER_VERSION}, UI ${TEMPORAL_UI_VERSION})`;
    writeFileSync(temporalCliPath(), `#!/bin/sh\necho '${version}'\n`, { mode: 0o755 });
  });
  afterAll(() => {
    if (saved === undefined) delete process.env['CONVENGINE_CACHE_DIR'];
    else process.env['CONVENGINE_CACHE_DIR'] = saved;
    rmSync(cache, { recursive: true, force: true });
  });
  beforeAll(() => new Promise<void>((resolve) => (taken = createServer().listen(0, '127.0.0.1', resolve))));
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it('names the given --temporal-port and the derived port, and suggests --temporal-ui-port', async () => {
    const uiPort = (taken.address() as AddressInfo).port;
    const port = uiPort - 1000;
    const options = { env: loadEnv({}), home: cache, port, portGiven: true, mode: 'cli' as const, ui: true };
    const err = await temporalPart({ ...options, logger: silentLogger() }).then(
      (part) => part.stop().then(() => new Error(`it started at ${part.value.address}`)),
      (thrown: unknown) => thrown
    );
    expect(err).toBeInstanceOf(TemporalPortTakenError);
    expect((err as Error).message).toBe(
      `Temporal cannot listen on port ${uiPort}, the Web UI's, --temporal-port ${port} + 1000: address already in ` +
        `use (choose another with --temporal-ui-port, or --temporal-ui-port 0 for a free one)`
    );
  });
});
