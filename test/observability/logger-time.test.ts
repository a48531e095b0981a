/** Pretty log lines carry UTC times in the README's format (`2026-03-01 10:00:00.123 UTC`), whatever the host's zone. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const LOG_ONE_LINE =
  "require('./observability/logger').createLogger({ level: 'info', format: 'pretty', name: 'cli' }).info('hello')";

/** One pretty line as `convengine start` writes it on a host whose zone is `tz`. */
function prettyLineIn(tz: string): string {
  const env: NodeJS.ProcessEnv = { ...process.env, TZ: tz, NO_COLOR: '1' };
  return execFileSync(process.execPath, ['-r', 'tsx/cjs', '-e', LOG_ONE_LINE], { cwd: ROOT, env, encoding: 'utf8' });
}

describe('pretty log line times', () => {
  it('are UTC with the zone named, on a host far from UTC (Pacific/Chatham, +12:45 or +13:45)', () => {
    const before = Date.now();
    const line = prettyLineIn('Pacific/Chatham');
    const after = Date.now();
    const time = /^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) UTC\]/.exec(line)?.[1];
    expect(line).toContain('hello');
    expect(time).toBeDefined();
    const logged = Date.parse(`${(time ?? '').replace(' ', 'T')}Z`);
    expect(logged).toBeGreaterThanOrEqual(before - 1000);
    expect(logged).toBeLessThanOrEqual(after + 1000);
  });
});
