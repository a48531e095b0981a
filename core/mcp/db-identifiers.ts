import { isJsonObject, type Json } from '../json';

/**
 * `${name}` placeholders of a ce_mcp_db_tool sql_template (D8): each is replaced by a plain identifier (`ident` or
 * `schema.ident`) taken from args[name], which must be listed under allowed_identifiers[name]. A name with no list
 * (allowed_identifiers null, the name missing, or an empty list) allows no identifier at all: the tool fails closed,
 * and config validation refuses such a template before it is stored. Shared by the tool (run time) and config
 * validation, which checks every expansion the tool could run against the SQL guardrail.
 */
export const IDENTIFIER_PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
export const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/**
 * Most expansions validation checks for one template: each costs a parse (≈0.2 ms). A template whose allowed
 * identifiers combine into more is refused at load; split it into several tools.
 */
export const MAX_IDENTIFIER_EXPANSIONS = 256;

/** The placeholder names of a template, each once, in order of first use. */
export function identifierPlaceholders(template: string): string[] {
  return [...new Set([...template.matchAll(IDENTIFIER_PLACEHOLDER)].map((m) => m[1] as string))];
}

/** The identifiers allowed for `${name}`: none unless allowed_identifiers lists some under that name. */
export function allowedIdentifierValues(allowedIdentifiers: Json | null, name: string): string[] {
  if (!isJsonObject(allowedIdentifiers) || !Object.hasOwn(allowedIdentifiers, name)) return [];
  const list = allowedIdentifiers[name];
  return Array.isArray(list) ? list.filter((v): v is string => typeof v === 'string') : [];
}

/** The template with each `${name}` replaced by valueOf(name). */
export function expandIdentifierPlaceholders(template: string, valueOf: (name: string) => string): string {
  return template.replace(IDENTIFIER_PLACEHOLDER, (_m, name: string) => valueOf(name));
}

export type IdentifierExpansions = { ok: true; expansions: string[] } | { ok: false; reason: string };

/**
 * Every SQL text the tool could run: the template expanded with each combination of allowed identifiers (the
 * template itself when it has no placeholders). Refused when a placeholder has no allowed identifier, an allowed
 * value is not a plain identifier (the tool would refuse it), or there are more than MAX_IDENTIFIER_EXPANSIONS.
 */
export function identifierExpansions(template: string, allowedIdentifiers: Json | null): IdentifierExpansions {
  const names = identifierPlaceholders(template);
  const choices: string[][] = [];
  for (const name of names) {
    const values = [...new Set(allowedIdentifierValues(allowedIdentifiers, name))];
    if (values.length === 0) {
      return {
        ok: false,
        reason: `sql_template uses \${${name}}, but allowed_identifiers lists no identifier for it (add allowed_identifiers: {"${name}": ["<table or column>", …]}, or remove the placeholder)`,
      };
    }
    const bad = values.find((v) => !PLAIN_IDENTIFIER.test(v));
    if (bad !== undefined) {
      return {
        ok: false,
        reason: `allowed_identifiers.${name} has ${JSON.stringify(bad)}, which is not a plain identifier (name or schema.name)`,
      };
    }
    choices.push(values);
  }
  const count = choices.reduce((n, values) => n * values.length, 1);
  if (count > MAX_IDENTIFIER_EXPANSIONS) {
    return {
      ok: false,
      reason: `allowed_identifiers combine into ${count} SQL statements; at most ${MAX_IDENTIFIER_EXPANSIONS} are checked (split the tool)`,
    };
  }
  let combinations: Record<string, string>[] = [{}];
  names.forEach((name, i) => {
    combinations = combinations.flatMap((c) => (choices[i] ?? []).map((value) => ({ ...c, [name]: value })));
  });
  return {
    ok: true,
    expansions: combinations.map((c) => expandIdentifierPlaceholders(template, (name) => c[name] ?? '')),
  };
}
