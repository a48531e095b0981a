import { z } from 'zod';

/**
 * How one environment variable's text becomes a value (config/env-schema.ts declares which variable takes which). An
 * invalid value's message says what the variable must be, never what it was: several carry secrets.
 */

/** docker-compose and shells often export `VAR=`: blank is unset, except for a secret (secretWhenSet). */
export const blankAsUnset = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

/** A case-insensitive choice: trimmed and lower-cased before it is checked (blank: unset). */
export const lowercased = (value: unknown) => {
  const set = blankAsUnset(value);
  return typeof set === 'string' ? set.trim().toLowerCase() : undefined;
};

export const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });

export const optionalText = z.preprocess(blankAsUnset, z.string().optional());

const isPostgresUrl = (v: string) => /^postgres(ql)?:\/\//.test(v) && URL.canParse(v);
const POSTGRES_URL_RULE = 'must be a postgres:// or postgresql:// URL';

export const postgresUrl = z.preprocess(blankAsUnset, z.string().refine(isPostgresUrl, POSTGRES_URL_RULE).optional());

/** The highest TCP port: every port this process listens on or connects to is checked against it. */
export const PORT_MAX = 65_535;

/**
 * The one port rule: decimal digits from `min` (0 where 0 means "any free port", 1 for an address to connect to)
 * to PORT_MAX; null for anything else (`99999`, `0x10`, `1e3`, blank).
 */
export function portNumber(text: string, min: 0 | 1): number | null {
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : NaN;
  return port >= min && port <= PORT_MAX ? port : null;
}

const HOST_PORT = /^(\[[0-9a-fA-F:]+\]|[^\s:/[\]]+):([0-9]+)$/;
/** What TEMPORAL_ADDRESS (and a command's --address) must be. */
export const HOST_PORT_RULE = `must be host:port with a port from 1 to ${PORT_MAX}, e.g. localhost:7233`;
/** host:port whose port one can connect to: `:0` and `:99999` were let through, to wait ~10 s for no server. */
export const isHostPort = (value: string): boolean => {
  const port = HOST_PORT.exec(value)?.[2];
  return port !== undefined && portNumber(port, 1) !== null;
};
export const optionalHostPort = z.preprocess(blankAsUnset, z.string().refine(isHostPort, HOST_PORT_RULE).optional());

export const httpUrl = z.preprocess(
  blankAsUnset,
  z
    .string()
    .refine((v) => /^https?:\/\//.test(v) && URL.canParse(v), 'must be an http:// or https:// URL')
    .optional()
);

/**
 * Plain decimal digits: Number() would also take `0xA8A4`, `1e3`, `0b1` and `.5e1`. A leading `-` is read, so a
 * negative value is refused by its bound (`must be >= 1`), which says more than a syntax error would.
 */
const DECIMAL_INTEGER = /^-?[0-9]+$/;
export const INTEGER_RULE = 'must be a whole number in decimal digits, e.g. 3000';

/** The number a variable's decimal digits spell (blank: unset); any other text is left for the schema to refuse. */
const decimalInteger = (value: unknown) => {
  const set = blankAsUnset(value);
  if (typeof set !== 'string') return set;
  const text = set.trim();
  return DECIMAL_INTEGER.test(text) ? Number(text) : text;
};

const boundedInteger = (min: number, max: number) =>
  z
    .number({ error: INTEGER_RULE })
    .min(min, `must be >= ${min}`)
    .max(max, `must be <= ${max}`)
    // After the bounds: digits past 2^53 are an integer too large, not a fraction.
    .int(INTEGER_RULE);

/** An integer from `min` to `max`; `fallback` when unset. */
export const integer = (fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(decimalInteger, boundedInteger(min, max).default(fallback));

/** An integer from `min` to `max`, or undefined when unset. */
export const optionalInteger = (min: number, max: number) =>
  z.preprocess(decimalInteger, boundedInteger(min, max).optional());

/** Why a secret with blanks around it is refused (the value itself is never printed). */
export const SURROUNDING_WHITESPACE =
  'has surrounding whitespace (a space, tab or newline before or after the value): remove it; a secret is never trimmed';

/**
 * A secret or a protection (a token, a key, a TLS file, a restricted login) whose absence turns something off or
 * changes which credential is used. Set but blank is an error, never unset: `API_TOKEN='   '` would otherwise
 * serve every route without a token. `unset` says what leaving it unset does instead. Blanks around a value are an
 * error too, not trimmed away: `API_TOKEN=' abc '` (or a secrets file's trailing newline) made every call a 401 with
 * no hint, and a trim would quietly make a credential other than the one given.
 */
export const secretWhenSet = (unset: string, rule?: { check: (v: string) => boolean; message: string }) => {
  const blank = `is set but blank: give it a value, or unset it (unset: ${unset})`;
  const exact = untrimmed(z.string().refine((v) => v.trim() !== '', { message: blank, abort: true }));
  return (rule ? exact.refine(rule.check, rule.message) : exact).optional();
};

/** A secret is taken exactly as given, or refused: never trimmed, never printed. */
const untrimmed = (secret: z.ZodType<string>) =>
  secret.refine((v) => v === v.trim(), { message: SURROUNDING_WHITESPACE, abort: true });

/**
 * A secret whose blank stays unset (ANTHROPIC_API_KEY: the keyless demo, and compose passes `${VAR:-}`), but whose
 * value, once it has one, is refused with blanks around it as secretWhenSet's is: a key with a secrets file's trailing
 * newline made every LLM call a 401.
 */
export const secretBlankAsUnset = z.preprocess(blankAsUnset, untrimmed(z.string()).optional());

/** A postgres:// login URL that is a secret: see secretWhenSet. */
export const secretPostgresUrl = (unset: string) =>
  secretWhenSet(unset, { check: isPostgresUrl, message: POSTGRES_URL_RULE });
