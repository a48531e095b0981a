/**
 * `convengine start` refuses a bad command line before it starts anything: an unknown option, an
 * option without its value (`--home` alone once made a directory named "true"), a port out of range.
 * The environment names servers that do not answer, so a command line wrongly accepted fails fast.
 */
import { startFailure } from '../../cli/commands/start';
import { runConvengine } from '../support/run-cli';

const NOWHERE = { TEMPORAL_ADDRESS: '127.0.0.1:1', DATABASE_URL: 'postgres://convengine@127.0.0.1:1/none' };

describe('convengine start usage errors', () => {
  it.each([
    [['--bogus'], 'start: unexpected argument(s): --bogus'],
    [['--home'], '--home needs a value'],
    [['--home', '--port', '0'], '--home needs a value'],
    [['--port', '-1'], '--port expects a number from 0 to 65535'],
    [['--port', 'abc'], '--port expects a number from 0 to 65535'],
    [['--port', '70000'], '--port expects a number from 0 to 65535'],
    [['--temporal-port', '99999'], '--temporal-port expects a number from 0 to 65535'],
    [['--temporal-ui-port', '99999'], '--temporal-ui-port expects a number from 0 to 65535'],
    [['--temporal-ui-port', 'ui'], '--temporal-ui-port expects a number from 0 to 65535'],
    [['--temporal-ui-port'], '--temporal-ui-port needs a value'],
  ])('start %j exits 2 with "%s"', async (args, message) => {
    const run = await runConvengine(['start', ...args], NOWHERE, 30_000);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(message);
    expect(run.stderr).toMatch(/^Usage: convengine start /m);
  });
});

// What the native worker threw for a missing namespace, as `start` printed it: the line twice in the log, then this.
const NATIVE_NAMESPACE_NOT_FOUND =
  'Namespace teamb was not found or otherwise could not be described: Status { code: NotFound, message: ' +
  '"Namespace teamb is not found.", details: b"\\x08\\x05\\x12\\x1dNamespace teamb is not found.\\x1aT\\nItype.googleapis.com/' +
  'temporal.api.errordetails.v1.NamespaceNotFoundFailure\\x12\\x07\\n\\x05teamb", metadata: MetadataMap { headers: {} }, ' +
  'source: None }';

describe('convengine start that fails', () => {
  it('names a missing namespace and its fix in one line, without the native status dump', () => {
    const native = Object.assign(new Error(NATIVE_NAMESPACE_NOT_FOUND), { name: 'TransportError' });
    expect(startFailure(native, 'teamb')).toBe(
      'ConvEngine failed to start: namespace teamb does not exist: run `convengine setup-temporal`'
    );
  });

  it('says any other failure in one line, its causes after it', () => {
    const failure = new Error('migration failed', { cause: new Error('connection refused\n    at …') });
    expect(startFailure(failure, 'default')).toBe('ConvEngine failed to start: migration failed: connection refused');
  });
});
