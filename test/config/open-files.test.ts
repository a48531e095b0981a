/**
 * The open-files limit (RLIMIT_NOFILE) as Linux tells it in /proc/<pid>/limits, and what it bounds: the default of
 * MESSAGE_MAX_CONCURRENT, and the warning `start`, `api` and `worker` log at start when it is low.
 */
import {
  connectionCapFor,
  lowOpenFilesWarning,
  MESSAGE_MAX_CONCURRENT_CEILING,
  MESSAGE_MAX_CONCURRENT_FALLBACK,
  messageConcurrencyFor,
  openFilesLimit,
  parseOpenFilesLimit,
} from '../../config/open-files';
import { warnOnFewOpenFiles } from '../../observability/process';

/** /proc/self/limits as Linux 6 writes it, with `files` as the soft and hard open-files limits. */
const limits = (soft: string, hard: string) =>
  [
    'Limit                     Soft Limit           Hard Limit           Units     ',
    'Max cpu time              unlimited            unlimited            seconds   ',
    'Max processes             63461                63461                processes ',
    `Max open files            ${soft.padEnd(20)} ${hard.padEnd(20)} files     `,
    'Max locked memory         8388608              8388608              bytes     ',
    '',
  ].join('\n');

describe('parseOpenFilesLimit', () => {
  it('reads the soft limit, not the hard one', () => {
    expect(parseOpenFilesLimit(limits('256', '1048576'))).toBe(256);
    expect(parseOpenFilesLimit(limits('1048576', '1048576'))).toBe(1048576);
  });

  it('reads `unlimited` as Infinity, and a text without the line as unknown', () => {
    expect(parseOpenFilesLimit(limits('unlimited', 'unlimited'))).toBe(Infinity);
    expect(parseOpenFilesLimit('Max processes 10 10 processes\n')).toBeNull();
    expect(parseOpenFilesLimit('')).toBeNull();
  });
});

describe('openFilesLimit', () => {
  it("is this process's own on Linux, and unknown where there is no /proc", () => {
    if (process.platform === 'linux') expect(openFilesLimit()).toBeGreaterThan(0);
    const noProc = () => {
      throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    };
    expect(openFilesLimit(noProc)).toBeNull();
  });
});

describe('messageConcurrencyFor (MESSAGE_MAX_CONCURRENT unset)', () => {
  it('is a quarter of the limit, at least 1 and at most the ceiling; the fallback where the limit is unknown', () => {
    expect(messageConcurrencyFor(256)).toBe(64);
    expect(messageConcurrencyFor(1024)).toBe(256);
    expect(messageConcurrencyFor(3)).toBe(1);
    expect(messageConcurrencyFor(1048576)).toBe(MESSAGE_MAX_CONCURRENT_CEILING);
    expect(messageConcurrencyFor(Infinity)).toBe(MESSAGE_MAX_CONCURRENT_CEILING);
    expect(messageConcurrencyFor(null)).toBe(MESSAGE_MAX_CONCURRENT_FALLBACK);
  });
});

describe('connectionCapFor (API_MAX_CONNECTIONS unset)', () => {
  it('is the limit less the pools and a reserve of 128, at least a quarter of it; no bound where none is known', () => {
    // `convengine api` (its pool of 10) and `convengine start` (10 + 20 + 5) at 4096 and 1024 open files.
    expect(connectionCapFor(4096, 10)).toBe(4096 - 10 - 128);
    expect(connectionCapFor(1024, 35)).toBe(1024 - 35 - 128);
    // A limit the reserve nearly eats (warned of at start): a quarter, so the API still serves.
    expect(connectionCapFor(256, 135)).toBe(64);
    expect(connectionCapFor(3, 35)).toBe(1);
    expect(connectionCapFor(Infinity, 35)).toBeNull();
    expect(connectionCapFor(null, 35)).toBeNull();
  });
});

describe('the start-up warning of a low open-files limit', () => {
  it('names the limit and why, below 1024 only', () => {
    const lines: { fields: object; line: string }[] = [];
    const logger = { warn: (fields: object, line: string) => void lines.push({ fields, line }) };
    warnOnFewOpenFiles(logger, 256);
    warnOnFewOpenFiles(logger, 1024);
    warnOnFewOpenFiles(logger, null);
    expect(lines).toEqual([{ fields: { openFilesLimit: 256 }, line: lowOpenFilesWarning(256) }]);
    expect(lines[0]?.line).toMatch(
      /^the open-files limit \(ulimit -n\) is 256, under 1024: .*EMFILE.*raise it to 4096/
    );
  });
});
