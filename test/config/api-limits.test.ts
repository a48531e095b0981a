/**
 * MESSAGE_MAX_CONCURRENT against API_MAX_CONNECTIONS (config/api-limits.ts): a message past the message limit needs a
 * connection of its own, so with the connection bound at or below it the 503 TOO_MANY_MESSAGES is never sent. Both
 * set so is refused with the rest of the environment; one of them from the open-files limit is warned of at start and
 * by `convengine doctor`.
 */
import { checkApiLimits } from '../../cli/doctor/api-limits';
import { apiIntakeLimits, unreachableMessageLimitWarning } from '../../config/api-limits';
import { loadEnv } from '../../config/env';
import { issuesOf } from './env-issues';

const POOLS = { API_DB_POOL_MAX: 10, WORKER_DB_POOL_MAX: 20, WORKER_TOOLS_POOL_MAX: 5 };

describe('MESSAGE_MAX_CONCURRENT and API_MAX_CONNECTIONS', () => {
  it('are taken with the message limit below the connections', () => {
    expect(loadEnv({ MESSAGE_MAX_CONCURRENT: '99', API_MAX_CONNECTIONS: '100' })).toMatchObject({
      MESSAGE_MAX_CONCURRENT: 99,
      API_MAX_CONNECTIONS: 100,
    });
  });

  it.each([
    ['above', '500'],
    ['equal to', '100'],
  ])('are refused with the message limit %s the connections, as every command refuses a contradiction', (_, n) => {
    expect(issuesOf(() => loadEnv({ MESSAGE_MAX_CONCURRENT: n, API_MAX_CONNECTIONS: '100' }))).toEqual({
      MESSAGE_MAX_CONCURRENT:
        'is not below API_MAX_CONNECTIONS, so it is never reached: a message past it would need a connection that ' +
        'API_MAX_CONNECTIONS closes unanswered, not 503 TOO_MANY_MESSAGES; set it below API_MAX_CONNECTIONS, with ' +
        'room for the console, audit streams and probes',
    });
  });

  it('are warned of when the connections set are not above the message limit from the open-files limit', () => {
    const env = { ...POOLS, API_MAX_CONNECTIONS: 200 };
    // 4096 files: a quarter, 1024 messages at once.
    const limits = apiIntakeLimits(env, false, 4096);
    expect(limits).toEqual({ messageMaxConcurrent: 1024, maxConnections: 200 });
    expect(unreachableMessageLimitWarning(env, limits)).toBe(
      'this API holds at most 200 connections (API_MAX_CONNECTIONS), not more than the 1024 messages it answers at ' +
        'once (MESSAGE_MAX_CONCURRENT unset: from the open-files limit): a message past those never gets a ' +
        'connection, so it is never answered 503 TOO_MANY_MESSAGES with Retry-After (its client meets a closed ' +
        'connection), and the console, audit streams and probes get none either; set MESSAGE_MAX_CONCURRENT below ' +
        'API_MAX_CONNECTIONS (docs/operations.md "File descriptors")'
    );
    expect(checkApiLimits(env, 4096)).toMatchObject({ check: 'api-limits', level: 'warn' });
  });

  it('are warned of when the message limit set is not below the connections from the open-files limit', () => {
    // 1024 files under `convengine start`: 1024 - 35 pooled - 128 = 861 connections.
    const env = { ...POOLS, MESSAGE_MAX_CONCURRENT: 900 };
    const limits = apiIntakeLimits(env, true, 1024);
    expect(limits).toEqual({ messageMaxConcurrent: 900, maxConnections: 861 });
    expect(unreachableMessageLimitWarning(env, limits)).toMatch(
      /^this API holds at most 861 connections \(API_MAX_CONNECTIONS unset: from the open-files limit\), not more than the 900 messages it answers at once \(MESSAGE_MAX_CONCURRENT\)/
    );
  });

  it('say nothing where the message limit is below the connections, or there is no bound', () => {
    expect(unreachableMessageLimitWarning({}, apiIntakeLimits(POOLS, false, 4096))).toBeNull();
    expect(
      unreachableMessageLimitWarning({}, apiIntakeLimits({ ...POOLS, MESSAGE_MAX_CONCURRENT: 5 }, false, null))
    ).toBeNull();
    expect(checkApiLimits(POOLS, 4096)).toBeNull();
    expect(checkApiLimits({ ...POOLS, MESSAGE_MAX_CONCURRENT: 100 }, 4096)).toEqual({
      check: 'api-limits',
      level: 'ok',
      message: 'messages at once 100, below connections 3958',
    });
  });
});
