/**
 * `convengine whatif --since`: a time is UTC unless it names a zone, whatever zone the machine is in; an age is left to
 * the database's now() to measure back from (whatif-since-clock.test.ts).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..');

/**
 * What parseSince makes of each text in a process whose zone is New York, five hours behind UTC in December (a jest
 * worker's zone is fixed when it starts: its process.env is a copy, so assigning TZ there changes nothing).
 */
async function readInNewYork(texts: string[]): Promise<Record<string, string | { ageMs: number } | null>> {
  const script = `
    import { parseSince } from './cli/commands/whatif';
    const texts: string[] = JSON.parse(process.argv[1] ?? '[]');
    const offset = new Date(2026, 11, 1).getTimezoneOffset();
    const read = texts.map((t) => {
      const since = parseSince(t);
      return [t, since === null ? null : 'at' in since ? since.at.toISOString() : since];
    });
    console.log(JSON.stringify({ offset, read: Object.fromEntries(read) }));`;
  const { stdout } = await promisify(execFile)(
    join(ROOT, 'node_modules', '.bin', 'tsx'),
    ['-e', script, JSON.stringify(texts)],
    {
      cwd: ROOT,
      env: { ...process.env, TZ: 'America/New_York' },
    }
  );
  const { offset, read } = JSON.parse(stdout) as {
    offset: number;
    read: Record<string, string | { ageMs: number } | null>;
  };
  expect(offset).toBe(300);
  return read;
}

describe('whatif --since', () => {
  it('reads a time without a zone as UTC, one with a zone in it, and refuses what is not a time', async () => {
    const read = {
      '2026-12-01': '2026-12-01T00:00:00.000Z',
      '2026-12-01T00:30': '2026-12-01T00:30:00.000Z',
      '2026-12-01 00:30:15': '2026-12-01T00:30:15.000Z',
      '2026-12-01T00:30:15.250': '2026-12-01T00:30:15.250Z',
      '2026-12-01T00:30Z': '2026-12-01T00:30:00.000Z',
      '2026-12-01T00:30-05:00': '2026-12-01T05:30:00.000Z',
      '2026-12-01T00:30+01:00': '2026-11-30T23:30:00.000Z',
      '12h': { ageMs: 43_200_000 },
      '99999999999d': null,
      '2026-02-31': null,
      '2026-13-01T00:00': null,
      '2026-12-01T00:30 UTC': null,
      '2026-12-01foo': null,
      '2026-12-01T25:00': null,
      yesterday: null,
    };
    expect(await readInNewYork(Object.keys(read))).toEqual(read);
  });
});
