import { ApplicationFailure } from '@temporalio/common';
import { DrizzleQueryError } from 'drizzle-orm';
import { DatabaseError } from 'pg';
import { createLogger, withLogContext } from '../../observability/logger';
import { temporalLogger } from '../../observability/temporal-runtime';
import { captureLog as capture } from '../support/log-capture';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the process logger', () => {
  it('writes one JSON line per event with level, time, name and message', () => {
    const out = capture();
    const logger = createLogger({ level: 'info', format: 'json', name: 'worker', destination: out.stream });
    logger.info({ durationMs: 12 }, 'step completed');
    logger.debug('not at info');
    expect(out.lines()).toEqual([
      expect.objectContaining({ level: 'info', name: 'worker', msg: 'step completed', durationMs: 12 }),
    ]);
    expect(out.lines()[0]?.['time']).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('adds the activity context to every line written inside it, and only there', () => {
    const out = capture();
    const logger = createLogger({ level: 'info', format: 'json', name: 'worker', destination: out.stream });
    const step = { conversationId: 'c-1', turn: 3, step: 'McpPlan', attempt: 2, workflowId: 'turn-c-1-3' };
    withLogContext(step, () => logger.info('llm call'));
    logger.info('outside');
    const [inside, outside] = out.lines();
    expect(inside).toMatchObject(step);
    expect(outside).not.toHaveProperty('conversationId');
  });

  it('redacts secrets and tool payloads', () => {
    const out = capture();
    const logger = createLogger({ level: 'info', format: 'json', name: 'api', destination: out.stream });
    logger.info(
      {
        req: { headers: { authorization: 'Bearer s3cret-token', host: 'x' } },
        tool: { args: { customerId: 'C-42' }, result: { rows: [{ ssn: '123-45-6789' }] }, code: 'order.status' },
        apiKey: 'sk-live-abc',
      },
      'tool call'
    );
    const raw = out.raw();
    for (const secret of ['s3cret-token', 'C-42', '123-45-6789', 'sk-live-abc']) expect(raw).not.toContain(secret);
    expect(out.lines()[0]).toMatchObject({
      req: { headers: { authorization: '[redacted]', host: 'x' } },
      tool: { args: '[redacted]', result: '[redacted]', code: 'order.status' },
      apiKey: '[redacted]',
    });
  });

  it('writes a database error without its statement, parameters or DETAIL, also through the SDK', () => {
    const out = capture();
    const logger = createLogger({ level: 'info', format: 'json', name: 'worker', destination: out.stream });
    const driver = Object.assign(new DatabaseError('duplicate key value violates unique constraint "k"', 0, 'error'), {
      code: '23505',
      detail: 'Key (idempotency_key)=(my-card-4111) already exists.',
    });
    const drizzle = new DrizzleQueryError('insert into ce_audit values ($1)', ['my-card-4111'], driver);
    logger.error({ err: drizzle }, 'unhandled error');
    temporalLogger(logger).warn('Activity failed', { error: driver });
    const raw = out.raw();
    for (const leaked of ['my-card-4111', 'insert into', 'Failed query']) expect(raw).not.toContain(leaked);
    const message = 'A database statement failed: duplicate key value violates unique constraint "…" (SQLSTATE 23505)';
    const [first, second] = out.lines();
    expect(first?.['err']).toEqual({
      type: 'DrizzleQueryError',
      message,
      sqlState: '23505',
      stack: expect.stringMatching(new RegExp(`^DrizzleQueryError: ${escape(message)}\\n\\s+at `)),
    });
    expect(second?.['err']).toMatchObject({ type: 'DatabaseError', message, sqlState: '23505' });
  });

  it('names a missing database and a refused login as such, without the names or hosts the server quotes', () => {
    const out = capture();
    const logger = createLogger({ level: 'info', format: 'json', name: 'worker', destination: out.stream });
    const refused = (message: string, code: string) =>
      Object.assign(new DatabaseError(message, 0, 'error'), { code, severity: 'FATAL' });
    logger.error({ err: refused('database "nodb_h" does not exist', '3D000') }, 'no database');
    logger.error({ err: refused('password authentication failed for user "app_h"', '28P01') }, 'bad password');
    const drizzle = new DrizzleQueryError('select 1', [], refused('role "ghost_h" does not exist', '28000'));
    logger.error({ err: drizzle }, 'no role');
    expect(out.raw()).not.toMatch(/nodb_h|app_h|ghost_h/);
    const refusedLogin =
      'A database statement failed: the database refused the login (a wrong password, no such role, or no pg_hba.conf entry)';
    expect(out.lines().map((line) => line['err'])).toEqual([
      expect.objectContaining({
        message: 'A database statement failed: the database the connection string names does not exist',
        sqlState: '3D000',
      }),
      expect.objectContaining({ message: refusedLogin, sqlState: '28P01' }),
      expect.objectContaining({ message: refusedLogin, sqlState: '28000' }),
    ]);
  });

  it("keeps an error's detail numbers and codes, never the step results and user text a failed step run carries", () => {
    const out = capture();
    const logger = createLogger({ level: 'info', format: 'json', name: 'worker', destination: out.stream });
    const failure = ApplicationFailure.create({
      type: 'RESPONSE_MAPPING_NOT_FOUND',
      message: 'No response for GREETING/IDLE',
      details: [
        { sqlState: null, toolCode: 'order.status', attempts: 3, nonRetryable: true, note: 'user said hi there' },
        { ran: [{ step: 'Guardrail', result: { patch: { inputParams: { sanitized_user_text: 'hi there' } } } }] },
        'my card 4111',
      ],
    });
    logger.warn({ err: failure }, 'step failed');
    const raw = out.raw();
    for (const leaked of ['hi there', '4111', 'sanitized_user_text']) expect(raw).not.toContain(leaked);
    expect(out.lines()[0]?.['err']).toMatchObject({
      type: 'ApplicationFailure',
      message: 'No response for GREETING/IDLE',
      details: [{ toolCode: 'order.status', attempts: 3, nonRetryable: true }, {}, '[omitted]'],
    });
  });

  it('routes the Temporal SDK logs through it: metadata as fields, an error as one `err` field with its stack', () => {
    const out = capture();
    const logger = createLogger({ level: 'debug', format: 'json', name: 'worker', destination: out.stream });
    const sdk = temporalLogger(logger);
    sdk.warn('Workflow task failed', { sdkComponent: 'worker', taskQueue: 'q', error: new Error('boom') });
    sdk.log('DEBUG', 'polling', { sdkComponent: 'core' });
    expect(out.raw().trim().split('\n')).toHaveLength(2);
    const [failed, polling] = out.lines();
    expect(failed).toMatchObject({
      level: 'warn',
      msg: 'Workflow task failed',
      sdkComponent: 'worker',
      taskQueue: 'q',
    });
    expect(failed?.['err']).toMatchObject({
      type: 'Error',
      message: 'boom',
      stack: expect.stringContaining('Error: boom'),
    });
    expect(polling).toMatchObject({ level: 'debug', msg: 'polling', sdkComponent: 'core' });
  });

  it("with payload encryption keys, writes an SDK failure's outline only: its types, never its message or stack", () => {
    const out = capture();
    const logger = createLogger({ level: 'debug', format: 'json', name: 'worker', destination: out.stream });
    const cause = ApplicationFailure.create({ message: 'order ORD-SECRET-1 not found', type: 'TOOL_HTTP_ERROR' });
    const error = new Error('Activity task failed: order ORD-SECRET-1', { cause });
    temporalLogger(logger, { withoutFailureText: true }).warn('Workflow failed', { workflowId: 'turn-c-1', error });
    expect(out.raw()).not.toContain('ORD-SECRET-1');
    expect(out.lines()[0]).toMatchObject({
      msg: 'Workflow failed',
      workflowId: 'turn-c-1',
      err: {
        type: 'Error',
        cause: { type: 'ApplicationFailure', failureType: 'TOOL_HTTP_ERROR', nonRetryable: false },
      },
    });
  });

  it("with payload encryption keys, withholds every message and stack in a core line's failure, keeping its outline", () => {
    const out = capture();
    const logger = createLogger({ level: 'debug', format: 'json', name: 'worker', destination: out.stream });
    // Core's "Failing workflow task" as it is forwarded: the failure proto's Rust debug text, escapes and all.
    const failure =
      'Failure { failure: Some(Failure { message: "order \\"ORD-SECRET-1\\" not found", source: "TypeScriptSDK", ' +
      'stack_trace: "Error: order ORD-SECRET-1\\n    at turn (bundle.js:1:1)", encoded_attributes: None, ' +
      'cause: Some(Failure { message: "ORD-SECRET-1 again", source: "", stack_trace: "", encoded_attributes: None, ' +
      'cause: None, failure_info: Some(ApplicationFailureInfo(ApplicationFailureInfo { type: "TOOL_HTTP_ERROR", ' +
      'non_retryable: true, details: None, next_retry_delay: None, category: Unspecified })) }), failure_info: None }), ' +
      'force_cause: Unspecified }';
    const sdk = temporalLogger(logger, { withoutFailureText: true });
    sdk.warn('Failing workflow task', { sdkComponent: 'core', runId: 'r', failure });
    // Another component's field of that name is not core's failure text, nor is a key-less worker's line touched.
    sdk.warn('Workflow failed', { sdkComponent: 'worker', failure: 'message: "kept"' });
    temporalLogger(logger).warn('Failing workflow task', { sdkComponent: 'core', failure });
    const [withheld, worker, keyless] = out.lines();
    expect(JSON.stringify(withheld)).not.toContain('ORD-SECRET-1');
    expect(withheld).toMatchObject({ msg: 'Failing workflow task', sdkComponent: 'core', runId: 'r' });
    expect(withheld?.['failure']).toBe(
      'Failure { failure: Some(Failure { message: "[withheld]", source: "TypeScriptSDK", stack_trace: "[withheld]", ' +
        'encoded_attributes: None, cause: Some(Failure { message: "[withheld]", source: "", stack_trace: "[withheld]", ' +
        'encoded_attributes: None, cause: None, failure_info: Some(ApplicationFailureInfo(ApplicationFailureInfo { ' +
        'type: "TOOL_HTTP_ERROR", non_retryable: true, details: None, next_retry_delay: None, category: Unspecified })) ' +
        '}), failure_info: None }), force_cause: Unspecified }'
    );
    expect(worker?.['failure']).toBe('message: "kept"');
    expect(keyless?.['failure']).toBe(failure);
  });
});
