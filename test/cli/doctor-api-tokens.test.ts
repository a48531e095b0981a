/**
 * `convengine doctor`'s api-tokens finding (cli/doctor/api-tokens.ts): an API whose only token is API_TOKEN lets whoever
 * holds it, a gateway serving end users too, reach the operator routes; doctor warns of it (and `--strict` fails).
 */
import { checkApiTokens } from '../../cli/doctor/api-tokens';
import { runConvengine } from '../support/run-cli';

describe('checkApiTokens', () => {
  it('warns when API_TOKEN is the only token, naming OPERATOR_API_TOKEN as the fix', () => {
    const finding = checkApiTokens({ API_TOKEN: 'gateway-token' });
    expect(finding).toMatchObject({ check: 'api-tokens', level: 'warn' });
    expect(finding?.message).toMatch(/^API_TOKEN is the only API token: .* Set OPERATOR_API_TOKEN/);
    expect(finding?.message).not.toContain('gateway-token');
  });

  it('says ok when the operator has a token of its own, and nothing without API_TOKEN', () => {
    expect(checkApiTokens({ API_TOKEN: 'gateway-token', OPERATOR_API_TOKEN: 'operator-token' })).toEqual({
      check: 'api-tokens',
      level: 'ok',
      message: "API_TOKEN reaches the gateway's routes only; OPERATOR_API_TOKEN every route",
    });
    expect(checkApiTokens({})).toBeNull();
  });
});

describe('convengine doctor', () => {
  it('reports the api-tokens finding with the others, even when Temporal is not there', async () => {
    const run = await runConvengine(['doctor', '--address', '127.0.0.1:1', '--json'], {
      API_TOKEN: 'gateway-token',
      OPERATOR_API_TOKEN: undefined,
      DATABASE_URL: '',
    });
    const findings = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { check: string; level: string });
    expect(findings.map(({ check, level }) => [check, level])).toEqual([
      ['temporal', 'fail'],
      ['api-tokens', 'warn'],
    ]);
    expect(run.code).toBe(1);
  });
});
