import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import { EnvError, type Env, type EnvIssue } from './env';
import { TEMPORAL_TLS_OPTIONS, temporalTlsIssues } from './temporal-tls-issues';

/**
 * How every process of ours reaches a Temporal cluster: the address, and the TLS and API key a
 * secured cluster (Temporal Cloud, a self-hosted one behind mTLS) asks for. Built once per process
 * from the environment; the worker's native connection, the gateway's client and every CLI command
 * connect from it (worker/worker.ts, ./temporal-client.ts), so none of them can reach a secured
 * cluster by a second, plaintext route.
 */
export interface TemporalConnectionSettings {
  address: string;
  /** Absent: plaintext. */
  tls?: TLSConfig;
  /** Sent as `authorization: Bearer …` on every call; only ever over TLS. */
  apiKey?: string;
}

/** The default address of commands that talk to a cluster someone else started (history, sre, doctor). */
export const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';

/** TLS is on when asked for, or (unset) when any TLS option or an API key is set, as in the Temporal CLI. */
function tlsWanted(env: Env): boolean {
  if (env.TEMPORAL_TLS !== undefined) return env.TEMPORAL_TLS;
  return env.TEMPORAL_API_KEY !== undefined || TEMPORAL_TLS_OPTIONS.some((v) => env[v] !== undefined);
}

/** A PEM file's bytes; an EnvIssue (never the file's content) when it cannot be read or is not PEM. */
function readPem(variable: string, path: string, issues: EnvIssue[]): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    issues.push({ variable, reason: `cannot read ${path} (${code})` });
    return undefined;
  }
  if (!bytes.subarray(0, 64 * 1024).includes('-----BEGIN ')) {
    issues.push({ variable, reason: `${path} is not a PEM file (no -----BEGIN line)` });
    return undefined;
  }
  return bytes;
}

function tlsConfig(env: Env): TLSConfig {
  const issues: EnvIssue[] = [];
  const tls: TLSConfig = {};
  const ca = env.TEMPORAL_TLS_SERVER_CA_CERT_PATH;
  if (ca !== undefined) tls.serverRootCACertificate = readPem('TEMPORAL_TLS_SERVER_CA_CERT_PATH', ca, issues);
  const cert = env.TEMPORAL_TLS_CLIENT_CERT_PATH;
  const key = env.TEMPORAL_TLS_CLIENT_KEY_PATH;
  if (cert !== undefined && key !== undefined) {
    const crt = readPem('TEMPORAL_TLS_CLIENT_CERT_PATH', cert, issues);
    const privateKey = readPem('TEMPORAL_TLS_CLIENT_KEY_PATH', key, issues);
    if (crt && privateKey) tls.clientCertPair = { crt, key: privateKey };
  }
  if (env.TEMPORAL_TLS_SERVER_NAME !== undefined) tls.serverNameOverride = env.TEMPORAL_TLS_SERVER_NAME;
  if (issues.length > 0) throw new EnvError(issues);
  return tls;
}

/**
 * The cluster at `address` (default TEMPORAL_ADDRESS, else 127.0.0.1:7233) with the environment's
 * TLS and API key; reads the certificate files now, so a missing or wrong file stops the process at
 * start (EnvError), not at its first call.
 */
export function configuredTemporal(env: Env, address?: string): TemporalConnectionSettings {
  // loadEnv refused these already; checked again where the key is used, as an Env may be spread and edited.
  const issues = temporalTlsIssues(env);
  if (issues.length > 0) throw new EnvError(issues);
  const settings: TemporalConnectionSettings = {
    address: address ?? env.TEMPORAL_ADDRESS ?? DEFAULT_TEMPORAL_ADDRESS,
  };
  if (tlsWanted(env)) settings.tls = tlsConfig(env);
  if (env.TEMPORAL_API_KEY !== undefined) settings.apiKey = env.TEMPORAL_API_KEY;
  return settings;
}

/** `host:port (TLS, client certificate, API key)`, or `host:port (plaintext)`: how a process connects, never the secrets. */
export function describeTemporal(settings: TemporalConnectionSettings): string {
  if (!settings.tls) return `${settings.address} (plaintext)`;
  const parts = ['TLS'];
  if (settings.tls.clientCertPair) parts.push('client certificate');
  if (settings.apiKey !== undefined) parts.push('API key');
  return `${settings.address} (${parts.join(', ')})`;
}

/**
 * A connection to Temporal that could not be made, naming where it was going: the SDK's own messages ("Failed to
 * connect before the deadline", a tonic transport error) never say which address or how. The reason is the cause.
 */
export class TemporalUnreachableError extends Error {
  constructor(settings: TemporalConnectionSettings, cause: unknown) {
    super(`cannot reach Temporal at ${describeTemporal(settings)}`, { cause });
    this.name = 'TemporalUnreachableError';
  }
}

/** `err` as a TemporalUnreachableError for `settings`, wrapped once. */
export function unreachable(settings: TemporalConnectionSettings, err: unknown): TemporalUnreachableError {
  return err instanceof TemporalUnreachableError ? err : new TemporalUnreachableError(settings, err);
}

/** A server this process started on loopback (the embedded dev server, `temporal server start-dev`): plaintext. */
export function localTemporal(address: string): TemporalConnectionSettings {
  return { address };
}
