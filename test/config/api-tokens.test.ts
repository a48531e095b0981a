/**
 * OPERATOR_API_TOKEN, validated with the rest of the environment (config/api-tokens.ts): it needs API_TOKEN and a
 * value of its own, and an API with API_TOKEN alone is warned of, at start and by `convengine doctor`.
 */
import { sharedTokenWarning } from '../../config/api-tokens';
import { loadEnv } from '../../config/env';
import { issuesOf } from './env-issues';

describe('OPERATOR_API_TOKEN', () => {
  it('is taken with an API_TOKEN of another value', () => {
    expect(loadEnv({ API_TOKEN: 'gateway-token', OPERATOR_API_TOKEN: 'operator-token' })).toMatchObject({
      API_TOKEN: 'gateway-token',
      OPERATOR_API_TOKEN: 'operator-token',
    });
    expect(loadEnv({ API_TOKEN: 'gateway-token' })).not.toHaveProperty('OPERATOR_API_TOKEN');
  });

  // Without API_TOKEN every route is served without a token, the operator routes too: the operator's token guards nothing.
  it('is refused without API_TOKEN, as every command refuses an invalid variable', () => {
    expect(issuesOf(() => loadEnv({ OPERATOR_API_TOKEN: 'operator-token' }))).toEqual({
      OPERATOR_API_TOKEN:
        'is set without API_TOKEN: set API_TOKEN (the gateway token) too, or unset OPERATOR_API_TOKEN',
    });
  });

  // One value under both names would let the gateway's token reach every route while the operator thinks it does not.
  it('is refused when it is API_TOKEN itself, never echoing the value', () => {
    let message = '';
    try {
      loadEnv({ API_TOKEN: 'one-s3cret', OPERATOR_API_TOKEN: 'one-s3cret' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(
      'OPERATOR_API_TOKEN: is the same as API_TOKEN: give the operator a token of its own, or unset OPERATOR_API_TOKEN'
    );
    expect(message).not.toContain('one-s3cret');
  });
});

describe('sharedTokenWarning (logged at start; `convengine doctor` api-tokens)', () => {
  it.each([
    ['no token', {}, false],
    ['API_TOKEN alone', { API_TOKEN: 'gateway-token' }, true],
    ['both tokens', { API_TOKEN: 'gateway-token', OPERATOR_API_TOKEN: 'operator-token' }, false],
  ])('%s: warns %s', (_name, env, warns) => {
    const warning = sharedTokenWarning(env);
    expect(warning !== null).toBe(warns);
    if (warning === null) return;
    expect(warning).toMatch(
      /^API_TOKEN is the only API token: whoever holds it, a gateway serving end users too, reaches/
    );
    expect(warning).toContain('Set OPERATOR_API_TOKEN');
    expect(warning).not.toContain('gateway-token');
  });
});
