import leven from 'leven';
import { nearestName } from '../core/text/nearest';
import { TOOL_ENV_PREFIX } from '../core/config/vocabulary';
import type { EnvSource } from './env-needs';

/**
 * Variables that look like the engine's but that it does not read: `LOG_LEVL=debug` or `TEMPORAL_ADRESS=x` were
 * silently ignored, the default used instead of what the operator meant. Every command warns of each (one line, a
 * "did you mean" when a known name is close); none is refused, as a variable another program reads may share a prefix.
 */

/**
 * Other programs' variables under the engine's prefixes, never warned of: a name, or a prefix ending in `_`.
 * - CONVENGINE_TOOL_*: HTTP tool rows read their own (core/config/vocabulary.ts); a worker warns of an unset one.
 * - CONVENGINE_USE_SOURCES (bin/convengine.js), CONVENGINE_CACHE_DIR (config/cache-dir.ts): read outside the schema.
 * - docker-compose's .env (deploy/.env.example): image versions and database passwords, exported by some shells.
 * - The Temporal CLI's and SDKs' environment configuration (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE, TEMPORAL_ENV,
 *   the *_DATA forms of the TLS files, codec and gRPC metadata settings, TEMPORAL_CLI_*), the Temporal UI server's
 *   (TEMPORAL_UI_*, TEMPORAL_AUTH_*, TEMPORAL_CORS_ORIGINS) and the TypeScript SDK's debugging switches.
 */
export const FOREIGN_VARIABLES: readonly string[] = [
  TOOL_ENV_PREFIX,
  'CONVENGINE_USE_SOURCES',
  'CONVENGINE_CACHE_DIR',
  'CONVENGINE_VERSION',
  'TEMPORAL_DB_',
  'TEMPORAL_VERSION',
  'TEMPORAL_ADMINTOOLS_VERSION',
  'TEMPORAL_UI_VERSION',
  'TOOLS_DB_PASSWORD',
  'TEMPORAL_CONFIG_FILE',
  'TEMPORAL_PROFILE',
  'TEMPORAL_ENV',
  'TEMPORAL_DISABLE_CONFIG_',
  'TEMPORAL_TLS_CLIENT_CERT_DATA',
  'TEMPORAL_TLS_CLIENT_KEY_DATA',
  'TEMPORAL_TLS_SERVER_CA_CERT_DATA',
  'TEMPORAL_TLS_DISABLE_HOST_VERIFICATION',
  'TEMPORAL_CODEC_',
  'TEMPORAL_GRPC_META_',
  'TEMPORAL_CLI_',
  'TEMPORAL_UI_',
  'TEMPORAL_AUTH_',
  'TEMPORAL_CORS_ORIGINS',
  'TEMPORAL_DEBUG',
  'TEMPORAL_DEBUGGER_PLUGIN_URL',
  'TEMPORAL_TRACE_NATIVE_CALLS',
];

/**
 * Prefixes other programs own, that one of the engine's variables happens to share (NODE_ENV, OTEL_SERVICE_NAME,
 * ANTHROPIC_API_KEY): Node.js, the OpenTelemetry SDK and Anthropic's tools read many variables under them. A name
 * there is warned of only when it is a near miss of one of ours (two edits at most), a typo rather than theirs.
 */
export const SHARED_PREFIXES: readonly string[] = ['NODE_', 'OTEL_', 'ANTHROPIC_'];
const NEAR_MISS_EDITS = 2;

const prefixOf = (name: string): string | null => (name.includes('_') ? name.slice(0, name.indexOf('_') + 1) : null);
const isForeign = (name: string) =>
  FOREIGN_VARIABLES.some((foreign) => (foreign.endsWith('_') ? name.startsWith(foreign) : name === foreign));

/** The warning of each variable `source` sets under one of the prefixes of `known` that is none of them. */
export function unknownVariableWarnings(source: EnvSource, known: readonly string[]): string[] {
  const knownNames = new Set(known);
  const prefixes = new Set(known.map(prefixOf).filter((p) => p !== null));
  const warnings: string[] = [];
  for (const name of Object.keys(source).sort()) {
    const prefix = prefixOf(name);
    if (source[name] === undefined || knownNames.has(name) || prefix === null || !prefixes.has(prefix)) continue;
    if (isForeign(name)) continue;
    const nearest = nearestName(name, known);
    const shared = SHARED_PREFIXES.includes(prefix);
    if (shared && (nearest === null || leven(name, nearest) > NEAR_MISS_EDITS)) continue;
    const hint = nearest === null ? ' (docs/configuration.md lists the variables)' : `: did you mean ${nearest}?`;
    warnings.push(`warning: ${name} is set, but convengine reads no such variable and ignores it${hint}`);
  }
  return warnings;
}
