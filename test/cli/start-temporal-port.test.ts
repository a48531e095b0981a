/**
 * `convengine start --temporal-port N` with N taken: an error naming the option, as a taken --port is; only the
 * default port, not asked for, is replaced by a free one. Probing it writes no stray gRPC line on stderr.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onPreferredPort, temporalPart, TemporalPortTakenError } from '../../cli/stack/temporal-part';
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

  const start = (portsGiven: boolean) =>
    temporalPart({ env: loadEnv({}), home, port, mode: 'embedded', ui: false, logger: silentLogger(), portsGiven });

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
    const started = await onPreferredPort({ '--temporal-port': 0, '--temporal-ui-port': uiPort }, true, (free) => {
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
      await expect(onPreferredPort({ '--temporal-ui-port': uiPort }, true, start)).rejects.toThrow(
        new TemporalPortTakenError(`--temporal-ui-port ${uiPort}`)
      );
      expect(start).not.toHaveBeenCalled();
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});
