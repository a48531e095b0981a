import { AsyncLocalStorage } from 'node:async_hooks';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import pinoPretty from 'pino-pretty';
import type { LOG_FORMATS } from '../config/env';
import { isFilterCode } from '../core/config/scope';
import { safeErrorDetails } from '../core/errors';
import { shownText } from '../core/text/one-line-text';
import { databaseErrorText } from '../db/error-text';

export type { Logger } from 'pino';

export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * Fields every log line written inside an activity carries (conversationId, turn, step, attempt,
 * workflowId): set once by the activity interceptor, read by the logger's mixin, so leaf modules
 * (LLM client, tool dispatch) log with the turn's identity without passing it around.
 */
export type LogContext = Readonly<Record<string, string | number>>;
const logContext = new AsyncLocalStorage<LogContext>();

export function withLogContext<T>(fields: LogContext, run: () => T): T {
  return logContext.run({ ...logContext.getStore(), ...fields }, run);
}

/**
 * Secrets and tool payloads never reach a log line: credentials in headers and options, and the
 * arguments / results / SQL parameters of tool calls (they hold customer data). `*.x` matches one level.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  ...['apiKey', 'password', 'token', 'authorization', 'secret', 'databaseUrl', 'connectionString'].flatMap((key) => [
    key,
    `*.${key}`,
  ]),
  ...['args', 'arguments', 'params', 'rows', 'result', 'payload', 'body'].map((key) => `*.${key}`),
];

export interface LoggerConfig {
  level: string;
  format: LogFormat;
  /** The process part writing (api, worker, devserver, cli): one `name` field per line. */
  name: string;
  /** Tests capture lines here; default stdout. */
  destination?: DestinationStream;
}

/**
 * An `err` field as pino writes it, except a database error: redaction cannot reach into a message,
 * and drizzle's quotes the statement and its parameters, a driver error's DETAIL key values. Such an
 * error is written as the text db/error-text.ts allows, its SQLSTATE and its stack frames only.
 */
export function serializeError(err: unknown): unknown {
  const text = databaseErrorText(err);
  if (!text) return withSafeDetails(pino.stdSerializers.err(err as Error));
  const frames = ((err as Error).stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  const type = (err as Error).constructor?.name ?? 'Error';
  return {
    type,
    message: text.message,
    sqlState: text.sqlState,
    ...(text.systemCode !== null ? { systemCode: text.systemCode } : {}),
    stack: [`${type}: ${text.message}`, ...frames].join('\n'),
  };
}

/**
 * An error's `details` (an ApplicationFailure's, an EngineError's) as a log line may carry them: numbers, flags and
 * named codes only. A failed step run's details hold every step's result, whose patches quote the user's text and
 * the session; redaction paths cannot reach that deep, so they are left out here.
 */
function withSafeDetails(serialized: ReturnType<typeof pino.stdSerializers.err>): unknown {
  const details = (serialized as { details?: unknown }).details;
  if (details === undefined) return serialized;
  const safe = Array.isArray(details) ? details.map(safeErrorDetails) : safeErrorDetails(details);
  return { ...serialized, details: safe };
}

/** What Fastify's request lines say of a request; Fastify's own serializer would write the whole URL. */
interface LoggedRequest {
  method: string;
  url: string;
  headers?: Record<string, unknown>;
  ip?: string;
  socket?: { remotePort?: number };
}

/**
 * Query parameters whose values name things, not what anyone wrote (paging, a conversation or config version, a
 * status): a request line keeps them when they are plain tokens, so a request can be followed.
 */
const PLAIN_QUERY_PARAMS: ReadonlySet<string> = new Set(['after', 'limit', 'status', 'conversation', 'config']);
const PLAIN_VALUE = /^[A-Za-z0-9._:-]{1,64}$/;
/** Intent and state codes, which a line keeps when they are codes a filter takes, whatever their script. */
const CODE_QUERY_PARAMS: ReadonlySet<string> = new Set(['intent', 'state']);

/**
 * A code as a request line shows it: as written (`straße_zustand`), but what no one would see shown as its code point
 * (`⟨U+202E⟩`, core/text/one-line-text.ts), and what would end the value in a URL (`&`, `#`, a space…)
 * percent-encoded, as a URL writes it.
 */
const shownCode = (code: string): string => shownText(code.replace(/[%&=#+\p{Zs}]/gu, encodeURIComponent));

function shownQueryValue(name: string, value: string): string {
  if (CODE_QUERY_PARAMS.has(name)) return isFilterCode(value) ? shownCode(value) : '[redacted]';
  return PLAIN_QUERY_PARAMS.has(name) && PLAIN_VALUE.test(value) ? value : '[redacted]';
}

/**
 * A request as its log lines show it: the path, and its query parameters by name, each value `[redacted]` but the
 * plain ones and the codes above. A query can carry what a user wrote (the console searches replies by their text:
 * `?q=my ssn is …`), and a log is not the place for it.
 */
function serializeRequest(req: LoggedRequest): unknown {
  if (typeof req.url !== 'string') return req;
  const mark = req.url.indexOf('?');
  const path = mark < 0 ? req.url : req.url.slice(0, mark);
  const params = mark < 0 ? [] : [...new URLSearchParams(req.url.slice(mark + 1))];
  const shown = params.map(([name, value]) => `${encodeURIComponent(name)}=${shownQueryValue(name, value)}`);
  const url = shown.length === 0 ? path : `${path}?${shown.join('&')}`;
  return {
    method: req.method,
    url,
    host: req.headers?.['host'],
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** pino options shared by every logger we build (including Fastify's). */
export function loggerOptions(config: Pick<LoggerConfig, 'level' | 'name'>): LoggerOptions {
  return {
    name: config.name,
    level: config.level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError, req: serializeRequest },
    mixin: () => ({ ...logContext.getStore() }),
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
}

/**
 * Whether pretty lines are coloured: on a terminal, unless NO_COLOR is set to anything but "" (no-color.org: the
 * one switch a user sets for every program, so it is read as it is, not as a ConvEngine setting).
 */
function prettyColors(isTTY: boolean | undefined, noColor: string | undefined): boolean {
  return isTTY === true && (noColor ?? '') === '';
}

/** One JSON line per event, or pino-pretty's readable lines for humans (LOG_FORMAT=pretty). */
export function createLogger(config: LoggerConfig): Logger {
  const destination =
    config.destination ??
    (config.format === 'pretty'
      ? pinoPretty({
          sync: true,
          // eslint-disable-next-line no-restricted-properties -- NO_COLOR is every program's switch, not our config
          colorize: prettyColors(process.stdout.isTTY, process.env.NO_COLOR),
          ignore: 'pid,hostname',
          // UTC and named, as the README, Temporal and the CLI's other times are: a host-local clock time without a
          // zone cannot be lined up with those.
          translateTime: "UTC:yyyy-mm-dd HH:MM:ss.l 'UTC'",
        })
      : pino.destination({ sync: true }));
  return pino(loggerOptions(config), destination);
}

/** For programmatic callers that did not ask for logs (tests, benches). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
