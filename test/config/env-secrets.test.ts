import { ENV_VARIABLES, loadEnv } from '../../config/env';
import { SURROUNDING_WHITESPACE } from '../../config/env-values';
import { issuesOf } from './env-issues';

/** The variables whose blank value is an error, not unset (docs/configuration.md, "Blank values"). */
const SECRETS = [
  'API_TOKEN',
  'DEVSERVER_API_KEY',
  'OPERATOR_API_TOKEN',
  'PAYLOAD_ENCRYPTION_KEYS',
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'TEMPORAL_TLS_SERVER_NAME',
  'TOOLS_DATABASE_URL',
] as const;
const BLANK = (unset: string) => `is set but blank: give it a value, or unset it (unset: ${unset})`;

describe('loadEnv', () => {
  // API_TOKEN='   ' served every route without a token; a blank TEMPORAL_* TLS option or key connected in clear text.
  it('refuses a secret or a protection that is set but blank, saying what unset would do', () => {
    const blank = Object.fromEntries(SECRETS.map((name, i) => [name, i % 2 === 0 ? '' : ' \t\n']));
    expect(issuesOf(() => loadEnv(blank))).toEqual({
      API_TOKEN: BLANK('every route is served without a token'),
      DEVSERVER_API_KEY: BLANK('the dev server takes every call'),
      OPERATOR_API_TOKEN: BLANK('the operator routes take API_TOKEN'),
      PAYLOAD_ENCRYPTION_KEYS: BLANK('payloads go to Temporal unencrypted'),
      TEMPORAL_API_KEY: BLANK('no API key is sent'),
      TEMPORAL_TLS_CLIENT_CERT_PATH: BLANK('no client certificate'),
      TEMPORAL_TLS_CLIENT_KEY_PATH: BLANK('no client certificate'),
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: BLANK("the system's root CAs"),
      TEMPORAL_TLS_SERVER_NAME: BLANK("the address's host"),
      TOOLS_DATABASE_URL: BLANK("convengine_tools_ro_<database> on DATABASE_URL's server"),
    });
    // Unset, each keeps its documented meaning; set, a value with blanks in it is kept.
    expect(loadEnv({})).not.toHaveProperty('API_TOKEN');
    expect(loadEnv({ API_TOKEN: 't0ken', TOOLS_DATABASE_URL: 'postgres://tools@db/x' })).toMatchObject({
      API_TOKEN: 't0ken',
      TOOLS_DATABASE_URL: 'postgres://tools@db/x',
    });
    expect(issuesOf(() => loadEnv({ TOOLS_DATABASE_URL: 'mysql://db/x' }))).toEqual({
      TOOLS_DATABASE_URL: 'must be a postgres:// or postgresql:// URL',
    });
  });

  // API_TOKEN=' abc ' (or a secrets file's trailing newline) was kept as is: every call got 401, with no hint why.
  it('refuses a secret or a protection with whitespace around it, naming the variable, never the value', () => {
    const values = [' abc ', 'abc\n', '\tabc', 'abc\r\n', ' postgres://tools@db/x'];
    const surrounded = Object.fromEntries(SECRETS.map((name, i) => [name, values[i % values.length]]));
    let message = '';
    try {
      loadEnv(surrounded);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(issuesOf(() => loadEnv(surrounded))).toEqual(
      Object.fromEntries(SECRETS.map((name) => [name, SURROUNDING_WHITESPACE]))
    );
    expect(SURROUNDING_WHITESPACE).toMatch(/^has surrounding whitespace/);
    for (const name of SECRETS) expect(message).toContain(`  ${name}: ${SURROUNDING_WHITESPACE}`);
    expect(message).not.toMatch(/abc|tools@db/);
    // Inside a value, whitespace is the value's own.
    expect(loadEnv({ API_TOKEN: 'a b', DEVSERVER_API_KEY: 'k\tk' })).toMatchObject({
      API_TOKEN: 'a b',
      DEVSERVER_API_KEY: 'k\tk',
    });
  });

  // ANTHROPIC_API_KEY='sk-…\n' (a secrets file's trailing newline) was sent as is: every LLM call got 401.
  it('keeps a blank ANTHROPIC_API_KEY unset (the keyless demo), but refuses one with whitespace around it', () => {
    for (const blank of ['', ' ', '\n'])
      expect(loadEnv({ ANTHROPIC_API_KEY: blank }).ANTHROPIC_API_KEY).toBeUndefined();
    for (const surrounded of ['sk-ant-secret\n', ' sk-ant-secret', 'sk-ant-secret\r\n', '\tsk-ant-secret ']) {
      expect(issuesOf(() => loadEnv({ ANTHROPIC_API_KEY: surrounded }))).toEqual({
        ANTHROPIC_API_KEY: SURROUNDING_WHITESPACE,
      });
      let refusal = '';
      try {
        loadEnv({ ANTHROPIC_API_KEY: surrounded });
      } catch (err) {
        refusal = (err as Error).message;
      }
      expect(refusal).toContain(`ANTHROPIC_API_KEY: ${SURROUNDING_WHITESPACE}`);
      expect(refusal).not.toContain('sk-ant-secret');
    }
    expect(loadEnv({ ANTHROPIC_API_KEY: 'sk-ant-secret' })).toMatchObject({ ANTHROPIC_API_KEY: 'sk-ant-secret' });
  });

  it('keeps blank as unset for every variable that is no secret (compose passes `${VAR:-}`)', () => {
    const others = ENV_VARIABLES.filter((name) => !(SECRETS as readonly string[]).includes(name));
    expect(loadEnv(Object.fromEntries(others.map((name) => [name, ' '])))).toEqual(loadEnv({}));
  });
});
