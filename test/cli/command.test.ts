import { parseCommandArgs, portOption, readOptions, usageError, type CliIo } from '../../cli/command';

const SPEC = { values: ['home', 'port'], flags: ['json'] };

describe('readOptions', () => {
  it('reads values, flags and positionals; a flag never takes the next argument', () => {
    expect(readOptions(['x', '--home', 'h', '--json', 'y', '--port=7', '--bogus', 'z'], SPEC)).toEqual({
      positional: ['x', 'y', 'z'],
      options: new Map([
        ['home', ['h']],
        ['json', ['true']],
        ['port', ['7']],
      ]),
      unknown: ['--bogus'],
    });
  });

  it('takes a negative number as a value, not as an option', () => {
    expect(readOptions(['--port', '-1'], SPEC)).toMatchObject({ options: new Map([['port', ['-1']]]) });
  });

  it.each([
    [['--home'], '--home needs a value'],
    [['--home', '--json'], '--home needs a value'],
    [['--home='], '--home needs a value'],
    [['--json=yes'], '--json takes no value'],
    // Commands read one value of an option: the other was dropped without a word.
    [['--home', 'a', '--home', 'b'], '--home may be given only once'],
    [['--port=1', '--json', '--port', '1'], '--port may be given only once'],
  ])('refuses %j: %s', (args, message) => {
    expect(readOptions(args, SPEC)).toBe(message);
  });

  it('keeps every value of a repeatable option, in order, and takes a flag given twice as present', () => {
    const spec = { ...SPEC, repeatable: ['home'] };
    expect(readOptions(['--home', 'a', '--json', '--home=b', '--json'], spec)).toMatchObject({
      options: new Map([
        ['home', ['a', 'b']],
        ['json', ['true', 'true']],
      ]),
    });
    expect(parseCommandArgs('x', ['--port', '1', '--port', '2'], spec)).toBe('--port may be given only once');
  });
});

describe('parseCommandArgs', () => {
  it('refuses undeclared options, and positionals when the command takes none', () => {
    expect(parseCommandArgs('start', ['--bogus', '--home', 'h'], SPEC)).toBe('start: unexpected argument(s): --bogus');
    expect(parseCommandArgs('start', ['x', '--bogus'], { ...SPEC, positional: false })).toBe(
      'start: unexpected argument(s): --bogus x'
    );
    expect(parseCommandArgs('history', ['id', '--json'], SPEC)).toEqual({
      positional: ['id'],
      options: new Map([['json', ['true']]]),
    });
  });
});

describe('portOption', () => {
  const options = (port: string) => new Map([['port', [port]]]);

  it('gives the port, or the fallback when absent', () => {
    expect(portOption(options('0'), 'port', 3000)).toBe(0);
    expect(portOption(options('65535'), 'port', 3000)).toBe(65535);
    expect(portOption(new Map(), 'port', 3000)).toBe(3000);
  });

  it.each(['-1', 'abc', '70000', '1.5', ''])('refuses %j with the option named', (port) => {
    expect(portOption(options(port), 'port', 3000)).toBe('--port expects a number from 0 to 65535');
  });
});

describe('usageError', () => {
  it('prints the message and the synopsis (the usage up to its first blank line), and gives exit code 2', () => {
    const errors: string[] = [];
    const io: CliIo = { out: () => undefined, err: (line) => errors.push(line), stdin: process.stdin };
    expect(usageError(io, '--home needs a value', 'convengine x [--home dir]\n\nLong help.')).toBe(2);
    expect(errors).toEqual(['--home needs a value', 'Usage: convengine x [--home dir]']);
  });

  it('shows the controls of a quoted argument as code points, never sends them to the terminal', () => {
    const errors: string[] = [];
    const io: CliIo = { out: () => undefined, err: (line) => errors.push(line), stdin: process.stdin };
    usageError(io, '--since "2026\u001b[31m\u202e" is not an ISO time', 'convengine whatif');
    expect(errors[0]).toBe('--since "2026⟨U+001B⟩[31m⟨U+202E⟩" is not an ISO time');
  });
});
