/**
 * `convengine doctor` quotes what it checked: a namespace, a database's name in DATABASE_URL, PostgreSQL's error, a
 * config row's value. Anyone may have written those: its lines show their controls as code points (no escape
 * sequence reaches the terminal, no line is forged), and --json carries the text as written (JSON escapes it).
 */
import { seedPacks } from '../../db/seed';
import { startDevServer, type DevServer } from '../../devserver';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { runConvengine } from '../support/run-cli';

jest.setTimeout(120_000);

/** An OSC 52 clipboard write, a screen clear, a carriage return that overwrites the line, a bidi override. */
const HOSTILE = 'x\u001b]52;c;ZXZpbA==\u0007\u001b[2J\rok   forged\u202e';
const HOSTILE_SHOWN = 'x⟨U+001B⟩]52;c;ZXZpbA==⟨U+0007⟩⟨U+001B⟩[2J⟨U+000D⟩ok   forged⟨U+202E⟩';
/** A database name: the pg client decodes DATABASE_URL's path as a URI (its `;` and `=` would stay encoded). */
const DATABASE = 'x\u001b[2J\u001b[31m\rok   forged\u202e';
const DATABASE_SHOWN = 'x⟨U+001B⟩[2J⟨U+001B⟩[31m⟨U+000D⟩ok   forged⟨U+202E⟩';
/** A line break too, where the text is not cut at its first line (a namespace). */
const NAMESPACE = `ns${HOSTILE}\nfail forged           line`;
const NAMESPACE_SHOWN = `ns${HOSTILE_SHOWN}⟨U+000A⟩fail forged           line`;

interface Finding {
  check: string;
  level: string;
  message: string;
}

/** Each line a finding in its own words: no control character at all, and the level and check first. */
function expectShownLines(stdout: string): string[] {
  // eslint-disable-next-line no-control-regex -- finding them is the point
  expect(stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/u);
  const lines = stdout.trimEnd().split('\n');
  for (const line of lines) expect(line).toMatch(/^(ok {2}|warn|fail) [a-z-]+ +\S/);
  return lines;
}

function parsedFindings(stdout: string): Map<string, Finding> {
  const lines = stdout.trimEnd().split('\n');
  return new Map(lines.map((line) => JSON.parse(line) as Finding).map((f) => [f.check, f]));
}

describe('convengine doctor and hostile text', () => {
  let server: DevServer;
  let tdb: TestDatabase;
  beforeAll(async () => {
    server = await startDevServer({ port: 0 });
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['faq']);
    await tdb.pool.query(
      `INSERT INTO ce_config (config_type, config_key, config_value) VALUES ('AuditService', 'LEVEL', $1)`,
      [HOSTILE]
    );
  });
  afterAll(async () => {
    await server?.stop();
    await tdb?.drop();
  });

  const doctor = (json: boolean, databaseUrl: string) =>
    runConvengine(['doctor', '--address', server.address, '--namespace', NAMESPACE, ...(json ? ['--json'] : [])], {
      DATABASE_URL: databaseUrl,
    });

  it("shows a namespace's and a config row's controls in its lines, and --json carries them as written", async () => {
    const [human, json] = await Promise.all([doctor(false, tdb.url), doctor(true, tdb.url)]);
    expect([human.code, json.code]).toEqual([1, 1]);
    const lines = expectShownLines(human.stdout);
    expect(lines[0]).toContain(`fail temporal          cannot use namespace ${NAMESPACE_SHOWN} on ${server.address}`);
    const audit = lines.find((line) => line.startsWith('warn audit-trail'));
    expect(audit).toContain(`AuditService.LEVEL must be one of ALL`);
    expect(audit).toContain(`(got "${HOSTILE_SHOWN}")`);

    const findings = parsedFindings(json.stdout);
    expect(findings.get('temporal')?.message).toContain(`cannot use namespace ${NAMESPACE} on ${server.address}`);
    expect(findings.get('audit-trail')).toMatchObject({ level: 'warn' });
    expect(findings.get('audit-trail')?.message).toContain(`(got "${HOSTILE}")`);
    expect(json.stdout).not.toContain('⟨U+');
  });

  it("shows a database name's controls in PostgreSQL's error, and --json carries them as written", async () => {
    const url = new URL(tdb.url);
    url.pathname = `/${encodeURIComponent(DATABASE)}`;
    const [human, json] = await Promise.all([doctor(false, url.href), doctor(true, url.href)]);
    expect([human.code, json.code]).toEqual([1, 1]);
    const database = expectShownLines(human.stdout).find((line) => line.startsWith('fail database'));
    expect(database).toBe(`fail database          cannot read the schema: database "${DATABASE_SHOWN}" does not exist`);
    expect(parsedFindings(json.stdout).get('database')).toEqual({
      check: 'database',
      level: 'fail',
      message: `cannot read the schema: database "${DATABASE}" does not exist`,
    });
  });
});
