import type { Connection } from '@temporalio/client';
import { join } from 'node:path';
import type { Env, TemporalMode } from '../../config/env';
import { TURN_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';
import { installedTemporalCli, TEMPORAL_CLI_VERSION, TEMPORAL_SERVER_VERSION } from '../temporal/binary';
import { assertPortFree, isPortClash, startTemporalCli } from '../temporal/server';
import type { Logger } from '../../observability/logger';
import type * as TemporalClient from '../../config/temporal-client';
import {
  configuredTemporal,
  describeTemporal,
  localTemporal,
  type TemporalConnectionSettings,
} from '../../config/temporal-connection';
import type * as DevServerModule from '../../devserver';
import type * as TemporalSetup from '../temporal/setup';
import type * as Retention from '../temporal/retention';
import type { Part, TemporalEndpoint } from './types';

export interface TemporalPartOptions {
  env: Env;
  /** Directory for the server's state (dev-server journal, SQLite file). */
  home: string;
  /** Preferred frontend port; another free one when it is taken, unless a port was given. 0 = any free port. */
  port: number;
  /** `port` was asked for (--temporal-port), not a default. */
  portGiven?: boolean;
  /**
   * Preferred Web UI port (the real server's), given with --temporal-ui-port; absent: the frontend port + 1000, as
   * start-dev's default. When either port was given, a taken one is an error, as a taken --port is, not replaced by
   * a free one the caller never hears of.
   */
  uiPort?: number;
  mode: TemporalMode;
  /** Serve the real server's Web UI (the demo's private stack does not need it). */
  ui: boolean;
  /** Where the embedded dev server reports internal errors. */
  logger: Logger;
  /** Told when the real server's process has been spawned. */
  onSpawn?(): void;
}

/** A port Temporal is to listen on, and how the user chose it. */
export interface PreferredPort {
  /** The option that sets it: `--temporal-port`, `--temporal-ui-port`. */
  option: string;
  /** 0 = any free port. */
  port: number;
  /** How the port was chosen when the option was not given (`the default`); absent: given with the option. */
  chosenAs?: string;
}

/**
 * A Temporal port is taken while the user asked for Temporal ports (--temporal-port, --temporal-ui-port). Named as
 * the user chose it: a port derived from another one, or a default, is not blamed on an option never given.
 */
export class TemporalPortTakenError extends Error {
  constructor(taken: PreferredPort) {
    const { option, port, chosenAs } = taken;
    super(
      chosenAs === undefined
        ? `Temporal cannot listen on ${option} ${port}: address already in use (choose another, or leave it out for a free one)`
        : `Temporal cannot listen on port ${port}, ${chosenAs}: address already in use (choose another with ${option}, or ${option} 0 for a free one)`
    );
    this.name = 'TemporalPortTakenError';
  }
}

/** The first of `ports` that cannot be listened on now; null when all can. */
async function takenPort(ports: PreferredPort[]): Promise<PreferredPort | null> {
  for (const preferred of ports) {
    const free = await assertPortFree(preferred.port).then(
      () => true,
      () => false
    );
    if (!free) return preferred;
  }
  return null;
}

/**
 * Preferred ports, or, when they were not given and another server holds one of them, any free ones: the zero-setup
 * start keeps working. `ports` are the frontend's and (the real server's) the Web UI's, as the options name them;
 * 0 = any free port. A given port that is taken is the caller's error, told by probing it: a clash on a port the
 * server picks itself (start-dev's history, matching and HTTP ports, a free port taken between probe and bind) is
 * not blamed on a given one, and is tried once more on the same given ports.
 */
export async function onPreferredPort<T>(
  ports: PreferredPort[],
  given: boolean,
  start: (free: boolean) => Promise<T>
): Promise<T> {
  const preferred = ports.filter(({ port }) => port !== 0);
  const refuseTaken = async () => {
    const taken = given ? await takenPort(preferred) : null;
    if (taken) throw new TemporalPortTakenError(taken);
  };
  await refuseTaken();
  return start(false).catch(async (err: unknown) => {
    if (preferred.length === 0 || !isPortClash(err)) throw err;
    if (!given) return start(true);
    await refuseTaken();
    return start(false);
  });
}

/** TEMPORAL_NAMESPACE does not exist on the TEMPORAL_ADDRESS server, which `start` does not run. */
export class ExternalNamespaceMissingError extends Error {
  constructor(namespace: string, where: string) {
    super(
      `namespace ${namespace} does not exist on ${where}: run \`convengine setup-temporal\` to create it (check ` +
        'TEMPORAL_NAMESPACE for a typo first; `convengine start` creates a namespace only on a Temporal server it runs itself)'
    );
    this.name = 'ExternalNamespaceMissingError';
  }
}

/**
 * Temporal for `convengine start` / the demo stack: TEMPORAL_ADDRESS when set (its namespace must exist; its search
 * attributes are registered, best effort); else the real server (`temporal server start-dev`)
 * when mode is `cli`, or `auto` and `npm run temporal:install` has been run; else the embedded dev server.
 */
export async function temporalPart(options: TemporalPartOptions): Promise<Part<TemporalEndpoint>> {
  const { env } = options;
  if (env.TEMPORAL_ADDRESS) return externalTemporal(configuredTemporal(env), env.TEMPORAL_NAMESPACE);
  const binary = options.mode === 'embedded' ? null : installedTemporalCli();
  if (options.mode === 'cli' && !binary) {
    throw new Error('--temporal=cli needs the Temporal CLI: run `npm run temporal:install` (Go required)');
  }
  return binary ? realServer(binary, options) : embeddedDevServer(options);
}

/* eslint-disable @typescript-eslint/no-require-imports -- The Temporal client and the dev server are required
   where they are used: the real server is a child process, and `convengine start` wants it booting while this
   process loads the rest (see ./index.ts). require(), as import() of an extensionless path fails under tsx. */
async function externalTemporal(
  temporal: TemporalConnectionSettings,
  namespace: string
): Promise<Part<TemporalEndpoint>> {
  const { connectTemporalClient } = require('../../config/temporal-client') as typeof TemporalClient;
  const { setupTemporalNamespace } = require('../temporal/setup') as typeof TemporalSetup;
  const connection = await connectTemporalClient(temporal);
  try {
    await refuseMissingNamespace(connection, temporal, namespace);
    // A cluster we do not own may refuse (permissions, Temporal Cloud): the worker then reports what is missing.
    await setupTemporalNamespace(connection, { namespace, timeoutMs: 15_000 }).catch(() => undefined);
  } finally {
    await connection.close();
  }
  return {
    value: {
      address: temporal.address,
      connection: temporal,
      uiUrl: null,
      server: `Temporal at ${describeTemporal(temporal)}`,
    },
    embedded: null,
    stop: async () => undefined,
  };
}

/**
 * A server `start` does not run is not its to change: a namespace missing there (a typo in TEMPORAL_NAMESPACE) was
 * created, with 30 days' retention, on a cluster others share. It is refused, as `worker` and `api` do, with the
 * command that creates it on purpose. Any other answer is the worker's to report.
 */
async function refuseMissingNamespace(
  connection: Connection,
  temporal: TemporalConnectionSettings,
  namespace: string
): Promise<void> {
  const { isNamespaceNotFound } = require('../../config/temporal-client') as typeof TemporalClient;
  const missing = await connection.workflowService.describeNamespace({ namespace }).then(
    () => false,
    (err: unknown) => isNamespaceNotFound(err)
  );
  if (missing) throw new ExternalNamespaceMissingError(namespace, describeTemporal(temporal));
}

/** DEVSERVER_RETENTION_MS applied to the namespace of a real server `start` runs: its description, for the ready line. */
async function realServerRetention(address: string, namespace: string, options: TemporalPartOptions): Promise<string> {
  const { connectTemporalClient } = require('../../config/temporal-client') as typeof TemporalClient;
  const { applyNamespaceRetention, describeRetention } = require('../temporal/retention') as typeof Retention;
  const connection = await connectTemporalClient(localTemporal(address));
  try {
    const { appliedMs, warning } = await applyNamespaceRetention(
      connection,
      namespace,
      options.env.DEVSERVER_RETENTION_MS
    );
    if (warning) options.logger.warn({ component: 'temporal' }, warning);
    return describeRetention(appliedMs);
  } finally {
    await connection.close();
  }
}

async function realServer(binary: string, options: TemporalPartOptions): Promise<Part<TemporalEndpoint>> {
  const dbFile = join(options.home, 'temporal.sqlite');
  const namespace = options.env.TEMPORAL_NAMESPACE;
  // By default the Web UI is where `temporal server start-dev` puts it: frontend port + 1000.
  const uiPort = options.uiPort ?? (options.port && options.port + 1000);
  const ports = [frontendPort(options)];
  if (options.ui) ports.push(uiPreferredPort(options, uiPort));
  const server = await onPreferredPort(ports, portsGiven(options), (free) =>
    startTemporalCli({
      binary,
      port: free ? 0 : options.port,
      uiPort: free ? 0 : uiPort,
      ui: options.ui,
      dbFile,
      namespaces: [namespace],
      readyTimeoutMs: options.env.TEMPORAL_CLI_READY_TIMEOUT_MS,
      onSpawn: options.onSpawn,
    })
  );
  const retention = await realServerRetention(server.address, namespace, options).catch(async (err: unknown) => {
    await server.stop();
    throw err;
  });
  const name = `real Temporal server ${TEMPORAL_SERVER_VERSION} (Temporal CLI ${TEMPORAL_CLI_VERSION})`;
  const ui = server.uiUrl ? `, Web UI ${server.uiUrl}` : '';
  return {
    value: {
      address: server.address,
      connection: localTemporal(server.address),
      uiUrl: server.uiUrl,
      server: `${name} at ${server.address}`,
    },
    embedded: `Temporal: ${name} at ${server.address}${ui} (namespace ${namespace}, retention ${retention}, state in ${dbFile})`,
    stop: () => server.stop(),
    ended: server.exited.then(
      (code) => `the embedded Temporal server exited (${exitStatus(code)}): ${lastLine(server.tail())}`
    ),
  };
}

async function embeddedDevServer(options: TemporalPartOptions): Promise<Part<TemporalEndpoint>> {
  const { startDevServer } = require('../../devserver') as typeof DevServerModule;
  const devOptions = {
    namespace: options.env.TEMPORAL_NAMESPACE,
    persistPath: join(options.home, 'temporal-devserver.jsonl'),
    searchAttributes: { ...TURN_SEARCH_ATTRIBUTES },
    retentionMs: options.env.DEVSERVER_RETENTION_MS,
    onInternalError: (err: unknown) =>
      options.logger.error({ err, component: 'devserver' }, 'dev server internal error'),
    onWarning: (message: string) => options.logger.warn({ component: 'devserver' }, message),
  };
  const server = await onPreferredPort([frontendPort(options)], portsGiven(options), async (free) => {
    // Probed first: grpc-js writes its own failure to bind a taken port on stderr (`E No address added…`).
    if (!free) await assertPortFree(options.port);
    return startDevServer({ ...devOptions, port: free ? 0 : options.port });
  });
  return {
    value: {
      address: server.address,
      connection: localTemporal(server.address),
      uiUrl: null,
      server: `embedded dev server at ${server.address}`,
    },
    embedded: `Temporal: embedded dev server at ${server.address} (namespace ${server.namespace}, state in ${devOptions.persistPath})`,
    stop: () => server.stop(),
  };
}

/** A Temporal port was asked for: a taken one fails the start instead of being replaced by a free one. */
const portsGiven = (options: TemporalPartOptions): boolean =>
  options.portGiven === true || options.uiPort !== undefined;

function frontendPort(options: TemporalPartOptions): PreferredPort {
  const option = '--temporal-port';
  return options.portGiven ? { option, port: options.port } : { option, port: options.port, chosenAs: 'the default' };
}

function uiPreferredPort(options: TemporalPartOptions, uiPort: number): PreferredPort {
  const option = '--temporal-ui-port';
  if (options.uiPort !== undefined) return { option, port: uiPort };
  const frontend = options.portGiven ? `--temporal-port ${options.port}` : `the default Temporal port ${options.port}`;
  return { option, port: uiPort, chosenAs: `the Web UI's, ${frontend} + 1000` };
}

const exitStatus = (code: number | null): string => (code === null ? 'killed by a signal' : `code ${code}`);

/** The server's last line of output, which usually says why it stopped. */
function lastLine(output: string): string {
  return output.trim().split('\n').at(-1)?.trim() || 'it printed nothing';
}
