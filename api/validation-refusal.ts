import { fieldName } from '../core/text/unsafe-text';
import { envelope, type ErrorEnvelope, type ValidationDetails } from './errors';

/** One of the validator's issues, as Fastify hands them to the error handler (only the first: allErrors is off). */
export interface ValidationIssue {
  keyword?: string;
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

function describeValidation(issues: ValidationIssue[], context: string | undefined): string {
  const first = issues[0];
  if (!first) return 'The request is invalid.';
  const missing = first.params?.['missingProperty'];
  const extra = first.params?.['additionalProperty'];
  const where = `${context ?? 'body'}${first.instancePath ?? ''}`;
  if (typeof missing === 'string') return `${where}.${missing} is required.`;
  if (typeof extra === 'string') return `${where}.${extra} is not an allowed property.`;
  return `${where} ${first.message ?? 'is invalid'}.`;
}

/** Where the refused input was, as OpenAPI names a parameter's place (`in`), and `body`. */
const INPUT_PLACES: Readonly<Record<string, ValidationDetails['in']>> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

/** A JSON Pointer's segments, unescaped: `/inputParams/a~1b` is `inputParams`, `a/b`. */
const pointerSegments = (pointer: string): string[] =>
  pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));

/** A body field's name as the other 400s' `details.field` names it: `inputParams.note`, `items[0]`, `a["b c"]`. */
const bodyField = (parent: string, segment: string): string =>
  /^(?:0|[1-9][0-9]*)$/.test(segment) ? `${parent}[${segment}]` : fieldName(parent, segment);

/**
 * A VALIDATION_FAILED refusal's machine-readable part: where the input was, which field of it (a body field, '' for
 * the body itself, or a parameter's or header's name), and the JSON Schema keyword it failed (`required`,
 * `additionalProperties`, `type`, `pattern`, `maxLength`…), of the route's schema as the OpenAPI document gives it.
 * Nothing else of the validator's reaches the client.
 */
function validationDetails(issue: ValidationIssue | undefined, context: string | undefined): ValidationDetails {
  const place = INPUT_PLACES[context ?? 'body'] ?? 'body';
  const named = issue?.params?.['missingProperty'] ?? issue?.params?.['additionalProperty'];
  const segments = [...pointerSegments(issue?.instancePath ?? ''), ...(typeof named === 'string' ? [named] : [])];
  const field = place === 'body' ? segments.reduce(bodyField, '') : (segments[0] ?? '');
  const keyword = issue?.keyword;
  return { in: place, field, problem: keyword && /^[A-Za-z]{1,40}$/.test(keyword) ? keyword : 'invalid' };
}

/** The 400 VALIDATION_FAILED for the issues a route's schema found: a sentence, and `details` a client can act on. */
export function validationRefusal(issues: ValidationIssue[], context: string | undefined): ErrorEnvelope {
  return envelope('VALIDATION_FAILED', describeValidation(issues, context), {
    ...validationDetails(issues[0], context),
  });
}
