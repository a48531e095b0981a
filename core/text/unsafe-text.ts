/**
 * Text a turn may carry. PostgreSQL cannot store NUL in text or jsonb, a lone UTF-16 surrogate is
 * not text at all, and control characters (other than tab, newline and carriage return) have no
 * business in a chat message or a parameter; any of them once left a conversation half-written.
 * They are refused at the door with a 400 that names the field (api/text-check.ts), as is nesting
 * deeper than any real parameter object needs; the turn workflow's update validators refuse them
 * too, for operator decisions sent around the API (`temporal workflow update`).
 */
export const MAX_INPUT_DEPTH = 16;

// C0 controls except \t \n \r, DEL, C1 controls, and UTF-16 surrogates not part of a pair.
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export interface TextProblem {
  field: string;
  code: 'INVALID_TEXT' | 'TOO_DEEP';
  message: string;
}

function describe(text: string): string {
  const match = UNSAFE.exec(text)?.[0] ?? '';
  const unit = match.charCodeAt(0);
  if (unit === 0) return 'a NUL character';
  if (unit >= 0xd800 && unit <= 0xdfff) return 'an unpaired UTF-16 surrogate';
  return `a control character (U+${unit.toString(16).toUpperCase().padStart(4, '0')})`;
}

/** How a key below `parent` is named in an error (`inputParams.note`, `inputParams["a b"]`); `''` is the body itself. */
export function fieldName(parent: string, key: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return `${parent}[${JSON.stringify(key)}]`;
  return parent === '' ? key : `${parent}.${key}`;
}

/**
 * The first unsafe string (value or key) or too-deep nesting in `value`, depth-first. `maxDepth` is for callers
 * with a bound of their own (config JSON is not a request parameter).
 */
export function findTextProblem(
  value: unknown,
  field: string,
  depth = 0,
  maxDepth = MAX_INPUT_DEPTH
): TextProblem | null {
  if (typeof value === 'string') {
    return UNSAFE.test(value)
      ? { field, code: 'INVALID_TEXT', message: `${field} contains ${describe(value)}.` }
      : null;
  }
  if (typeof value !== 'object' || value === null) return null;
  if (depth >= maxDepth) {
    return { field, code: 'TOO_DEEP', message: `${field} is nested deeper than ${maxDepth} levels.` };
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const problem = findTextProblem(item, `${field}[${i}]`, depth + 1, maxDepth);
      if (problem) return problem;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    if (UNSAFE.test(key))
      return { field, code: 'INVALID_TEXT', message: `${field} has a key that contains ${describe(key)}.` };
    const problem = findTextProblem(item, fieldName(field, key), depth + 1, maxDepth);
    if (problem) return problem;
  }
  return null;
}

/** The first problem among named fields, e.g. `{ reason, decidedBy, result }`; null when every field is safe. */
export function firstTextProblem(fields: Record<string, unknown>): TextProblem | null {
  for (const [field, value] of Object.entries(fields)) {
    const problem = findTextProblem(value, field);
    if (problem) return problem;
  }
  return null;
}
