import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';

/**
 * The one dynamic config of every real Temporal server we run: docker-compose mounts this file, and
 * the launcher turns it into `temporal server start-dev --dynamic-config-value` flags.
 */
export const DYNAMIC_CONFIG_FILE = join('deploy', 'temporal', 'dynamicconfig', 'convengine-sql.yaml');

/** Walks up from this module (sources or dist/) to the checkout that holds deploy/. */
export function dynamicConfigPath(from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, DYNAMIC_CONFIG_FILE);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`${DYNAMIC_CONFIG_FILE} not found above ${from}`);
  }
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
