/**
 * JSON Schemas shared by request validation, response serialization and the OpenAPI document: the pieces every
 * route uses (ids, the error envelope, text responses). The routes' own schemas are this folder's other files.
 */
import { UUID_PATTERN } from '../../core/turn/turn-id';

export const uuidParam = { type: 'string', pattern: UUID_PATTERN } as const;

/** A conversation id as a route's `:id` path parameter. */
export const conversationIdParams = { type: 'object', required: ['id'], properties: { id: uuidParam } } as const;

export const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        details: {
          type: 'object',
          additionalProperties: true,
          description: "What a client can act on, by code: the route's responses say which keys come with which code.",
          properties: {
            field: {
              type: 'string',
              description:
                'The input refused (a 400): a body field (`inputParams.note`, `items[0]`; empty for the body ' +
                "itself), or a query or path parameter's or header's name.",
            },
            in: {
              type: 'string',
              enum: ['body', 'query', 'path', 'header'],
              description: 'VALIDATION_FAILED: where `field` is.',
            },
            problem: {
              type: 'string',
              description:
                "VALIDATION_FAILED: the JSON Schema keyword of the route's schema that `field` fails: required, " +
                'additionalProperties (a field the route does not take), type, pattern, minLength, maxLength, enum…',
            },
          },
        },
      },
    },
  },
} as const;

/*
 * Success responses (this folder's and api/console/schemas.ts). They serialize the route's answer too, so each lists
 * every field the route sends (a field left out would be dropped), requires none, and marks what may be null as
 * nullable (else null becomes "").
 */
export const anyObject = { type: 'object', additionalProperties: true } as const;
export const nullableString = { type: 'string', nullable: true } as const;

/** A response that is not JSON, in Fastify's per-media-type form (api/openapi.ts documents it as is). */
export function textResponse(mediaType: string, description: string) {
  return { description, content: { [mediaType]: { schema: { type: 'string' } } } };
}
