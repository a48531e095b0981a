import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/**
 * The one dynamic config of every real Temporal server we run: docker-compose mounts this file, and
 * the launcher turns it into `temporal server start-dev --dynamic-config-value` flags.
 */
export const DYNAMIC_CONFIG_FILE = join('deploy', 'temporal', 'dynamicconfig', 'convengine-sql.yaml');

/** A build without the shipped dynamic config: one made before `npm run build` copied it, or copied by hand. */
export class DynamicConfigMissingError extends Error {
  constructor(readonly path: string) {
    super(`${path} is missing: this build lacks the Temporal dynamic config (\`npm run build\` copies it into dist/)`);
    this.name = 'DynamicConfigMissingError';
  }
}

/**
 * The file as this build ships it: two folders above this module (cli/temporal/), in each layout the CLI runs from
 * (the checkout, dist/ and the compiled CLI cache: bin/runtime-assets.js copies it into the last two). Nothing
 * further up is searched: a deploy/ of some other checkout above an install is not this build's.
 */
export function dynamicConfigPath(moduleDir: string = __dirname): string {
  const path = join(moduleDir, '..', '..', DYNAMIC_CONFIG_FILE);
  if (!existsSync(path)) throw new DynamicConfigMissingError(path);
  return path;
}

interface ConstrainedValue {
  value: unknown;
  constraints?: Record<string, unknown>;
}

/**
 * `KEY=<JSON value>` for each setting of a dynamic config file. start-dev takes one global value per
 * key, so a key with constraints (per namespace, per task queue) or several values is refused rather
 * than applied differently from production.
 */
export function dynamicConfigFlags(yamlText: string, source = DYNAMIC_CONFIG_FILE): string[] {
  const document: unknown = parse(yamlText) ?? {};
  if (typeof document !== 'object' || Array.isArray(document)) throw new Error(`${source}: expected a mapping`);
  return Object.entries(document as Record<string, unknown>).map(([key, entries]) => {
    const values = entries as ConstrainedValue[];
    const only = Array.isArray(values) && values.length === 1 ? values[0] : undefined;
    if (!only || typeof only !== 'object' || !('value' in only)) {
      throw new Error(`${source}: ${key} must be a list with exactly one {value} entry`);
    }
    if (only.constraints && Object.keys(only.constraints).length > 0) {
      throw new Error(`${source}: ${key} has constraints, which temporal server start-dev cannot express`);
    }
    return `${key}=${JSON.stringify(only.value)}`;
  });
}

/** The flags for the shipped dynamic config. */
export function shippedDynamicConfigFlags(): string[] {
  const path = dynamicConfigPath();
  return dynamicConfigFlags(readFileSync(path, 'utf8'), path);
}
