import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTemporalCli } from '../../../cli/temporal/server';

/**
 * A stand-in for the Temporal CLI: its first start dies as start-dev does when a port it picked itself is taken (a Go
 * panic whose stack pushes the bind error far above the last lines), its second serves.
 */
function fakeCli(dir: string, stackLines: number): string {
  const script = join(dir, 'temporal');
  writeFileSync(
    script,
    [
      '#!/bin/sh',
      `runs="${join(dir, 'runs')}"`,
      'echo run >> "$runs"',
      `if [ "$(wc -l < "$runs")" -eq 1 ]; then`,
      '  echo "Unable to start server. Error: listen tcp 127.0.0.1:7234: bind: address already in use" >&2',
      `  i=0; while [ $i -lt ${stackLines} ]; do echo "    /root/go/pkg/mod/go.temporal.io/server@v1.29.1/temporal/fx.go:149 +0x19e" >&2; i=$((i+1)); done`,
      '  exit 1',
      'fi',
      'echo "Server:  127.0.0.1:7233"',
      'exec sleep 60',
    ].join('\n')
  );
  chmodSync(script, 0o755);
  return script;
}

describe('startTemporalCli', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ce-fake-temporal-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('starts again on other ports when start-dev died of a taken port, though the stack hid the bind error', async () => {
    const server = await startTemporalCli({ binary: fakeCli(dir, 200), readyTimeoutMs: 10_000 });
    try {
      expect(readFileSync(join(dir, 'runs'), 'utf8').trim().split('\n')).toHaveLength(2);
    } finally {
      await server.stop(1_000);
    }
  });

  it('does not start again when it died of something else, and says what, however long its stack', async () => {
    const script = fakeCli(dir, 0);
    const stack = 'i=0; while [ $i -lt 200 ]; do echo "    fx.go:149 +0x19e" >&2; i=$((i+1)); done';
    writeFileSync(script, `#!/bin/sh\necho "config: unknown key" >&2\n${stack}\nexit 1\n`);
    await expect(startTemporalCli({ binary: script, readyTimeoutMs: 10_000 })).rejects.toThrow(
      /exited with 1 before it was ready\n(.|\n)*config: unknown key\n(.|\n)*…\n(.|\n)*fx\.go:149/
    );
    expect(existsSync(join(dir, 'runs'))).toBe(false);
  });
});
