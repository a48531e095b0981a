import type { ConfigRows } from '../config/types';
import type { McpHttpToolRow } from '../config/tool-rows';
import { compareCodePoints } from '../text/compare-code-points';
import { HTTP_PLACEHOLDER } from './http-body-template';

/** A CONVENGINE_TOOL_* variable HTTP tools read that is not set, and the codes of the enabled tools that read it. */
export interface UnsetToolVariable {
  variable: string;
  tools: string[];
}

/** The variables one HTTP tool row reads: the `{{env.…}}` placeholders of its templates and its auth_secret_env. */
function variablesRead(row: McpHttpToolRow): string[] {
  const templates = [row.urlTemplate, JSON.stringify(row.headers), JSON.stringify(row.queryParams), row.bodyTemplate];
  const placeholders = templates.flatMap((text) => [...(text ?? '').matchAll(HTTP_PLACEHOLDER)]);
  const names = placeholders.filter((m) => m[1] === 'env').map((m) => m[2] ?? '');
  const auth = row.authKind.trim().toUpperCase() === 'NONE' ? undefined : row.authSecretEnv?.trim();
  return [...names, ...(auth ? [auth] : [])];
}

/**
 * The variables the config's enabled HTTP tools read that `env` leaves unset (or blank, as a call reads them): each
 * call of those tools fails CONFIG_INVALID until they are set. A worker says so at its start (worker/main.ts), the
 * one check of both `convengine worker` and `convengine start`.
 */
export function unsetToolVariables(
  rows: Pick<ConfigRows, 'mcpTools' | 'mcpHttpTools'>,
  env: Readonly<Record<string, string | undefined>>
): UnsetToolVariable[] {
  const enabled = new Map(rows.mcpTools.filter((t) => t.enabled).map((t) => [t.toolId, t.toolCode]));
  const unset = new Map<string, string[]>();
  for (const row of rows.mcpHttpTools) {
    const code = enabled.get(row.toolId);
    if (code === undefined) continue;
    for (const variable of new Set(variablesRead(row))) {
      if (env[variable] !== undefined && env[variable] !== '') continue;
      unset.set(variable, [...(unset.get(variable) ?? []), code]);
    }
  }
  return [...unset]
    .map(([variable, tools]) => ({ variable, tools }))
    .sort((a, b) => compareCodePoints(a.variable, b.variable));
}

/** The warning a worker logs at start for one unset variable. */
export function unsetToolVariableWarning({ variable, tools }: UnsetToolVariable): string {
  return (
    `${variable} is not set, but the HTTP tools ${tools.join(', ')} read it: each of their calls fails ` +
    `(CONFIG_INVALID) until it is set`
  );
}
