import { schemaFieldDetails, schemaStatus } from '../../../core/schema/completeness';
import { extractionAnswerSchema, mergeExtraction, seedFromInputParams } from '../../../core/schema/merge';
import { schemaForCorrection, schemaForExtraction, templateFor } from '../../../core/schema/resolve';
import { schemaRow, sessionFor, snapshotOf, templateRow } from '../../support/config-rows';

const loanSchema = {
  type: 'object',
  properties: {
    customerId: { type: 'string', description: 'Customer id' },
    requestedAmount: { type: 'number' },
    tenureMonths: { type: 'integer', enum: [12, 24, 36] },
    tags: { type: 'array', minItems: 2 },
    address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  required: ['customerId', 'requestedAmount', 'tenureMonths'],
};

describe('schema completeness (§5.1)', () => {
  it('counts required fields with a meaningful value; lists options of missing enum fields', () => {
    const status = schemaStatus(loanSchema, { customerId: '  ', requestedAmount: 0 });
    expect(status).toEqual({
      complete: false,
      hasAnyValue: true,
      missingFields: ['customerId', 'tenureMonths'],
      missingFieldOptions: { tenureMonths: ['12', '24', '36'] },
    });
    expect(schemaStatus(loanSchema, { customerId: '1', requestedAmount: '5', tenureMonths: 24 }).complete).toBe(true);
    expect(schemaStatus(loanSchema, {}).hasAnyValue).toBe(false);
  });

  it('honours minItems and recurses into required objects', () => {
    const schema = { type: 'object', properties: loanSchema.properties, required: ['tags', 'address'] };
    expect(schemaStatus(schema, { tags: ['a'], address: {} }).missingFields).toEqual(['tags', 'address']);
    expect(schemaStatus(schema, { tags: ['a', 'b'], address: { city: 'Oslo' } }).complete).toBe(true);
  });

  it('describes each field', () => {
    expect(schemaFieldDetails(loanSchema)['tenureMonths']).toEqual({
      description: null,
      type: 'integer',
      enumOptions: ['12', '24', '36'],
    });
  });
});

describe('merging an extraction', () => {
  it('drops null/blank/empty values, deep-merges objects, overwrites scalars and arrays', () => {
    const context = { customerId: 'old', address: { city: 'Oslo', zip: '1' }, tags: ['x'] };
    expect(
      mergeExtraction(context, { customerId: 'new', requestedAmount: null, note: ' ', tags: [], address: { zip: '2' } })
    ).toBe(true);
    expect(context).toEqual({ customerId: 'new', address: { city: 'Oslo', zip: '2' }, tags: ['x'] });
    expect(mergeExtraction(context, { a: null, b: '' })).toBe(false);
  });

  it('a __proto__ key in the answer is skipped: it neither reaches Object.prototype nor the context prototype', () => {
    const context = {};
    expect(mergeExtraction(context, JSON.parse('{"__proto__": {"polluted": "yes"}, "a": 1}'))).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf(context)).toBe(Object.prototype);
    expect(context).toEqual({ a: 1 });
  });

  it('seeds empty schema fields from input params; relaxes the answer schema', () => {
    const context: Record<string, never> | { customerId?: string } = {};
    seedFromInputParams(context, ['customerId', 'requestedAmount'], { customerId: 'C1', other: 1 });
    expect(context).toEqual({ customerId: 'C1' });
    const relaxed = extractionAnswerSchema(loanSchema);
    expect(relaxed['required']).toBeUndefined();
    expect((relaxed['properties'] as Record<string, { type: unknown }>)['tenureMonths']).toEqual({
      type: ['integer', 'null'],
    });
  });

  it('relaxes nested objects the same way and keeps definitions for $ref', () => {
    const relaxed = extractionAnswerSchema({ ...loanSchema, definitions: { id: { type: 'string' } } });
    expect((relaxed['properties'] as Record<string, unknown>)['address']).toEqual({
      type: ['object', 'null'],
      properties: { city: { type: ['string', 'null'] } },
    });
    expect(relaxed['definitions']).toEqual({ id: { type: 'string' } });
  });
});

describe('schema resolution (D10)', () => {
  const s109 = schemaRow({ schemaId: 109, intentCode: 'LOAN', stateCode: 'GATE', jsonSchema: loanSchema });
  const anyState = schemaRow({ schemaId: 110, intentCode: 'OTHER', stateCode: 'ANY', jsonSchema: loanSchema });
  const snapshot = snapshotOf({ outputSchemas: [s109, anyState] });

  it('extraction uses the scoped schema; a persisted schema_id only while its own scope matches', () => {
    expect(schemaForExtraction(snapshot, sessionFor('x', { intent: 'LOAN', state: 'GATE' }))?.schemaId).toBe(109);
    expect(schemaForExtraction(snapshot, sessionFor('x', { intent: 'OTHER', state: 'Z' }))?.schemaId).toBe(110);
    const later = sessionFor('x', { intent: 'LOAN', state: 'COMPLETED', inputParams: { schema_id: 109 } });
    expect(schemaForExtraction(snapshot, later)).toBeUndefined();
    expect(
      schemaForExtraction(
        snapshot,
        sessionFor('x', { intent: 'FAQ', state: 'IDLE', inputParams: { schema_id: '109' } })
      )
    ).toBeUndefined();
  });

  it('correction also uses the persisted schema in later states of its own intent, never for another intent', () => {
    expect(
      schemaForCorrection(
        snapshot,
        sessionFor('x', { intent: 'LOAN', state: 'CONFIRMATION', inputParams: { schema_id: 109 } })
      )?.schemaId
    ).toBe(109);
    expect(
      schemaForCorrection(snapshot, sessionFor('x', { intent: 'FAQ', state: 'IDLE', inputParams: { schema_id: 109 } }))
    ).toBeUndefined();
  });

  it('templates: most specific scope first, then the newest', () => {
    const rows = [
      templateRow({ templateId: 1, intentCode: 'LOAN', stateCode: 'ANY', outputFormat: 'SCHEMA_JSON' }),
      templateRow({
        templateId: 2,
        intentCode: 'LOAN',
        stateCode: 'GATE',
        outputFormat: 'schema_json',
        createdAt: '2025-01-01T00:00:00Z',
      }),
      templateRow({
        templateId: 3,
        intentCode: 'LOAN',
        stateCode: 'GATE',
        outputFormat: 'SCHEMA_JSON',
        createdAt: '2026-02-01T00:00:00Z',
      }),
    ];
    const snap = snapshotOf({ promptTemplates: rows });
    expect(templateFor(snap, 'SCHEMA_JSON', 'LOAN', 'GATE')?.templateId).toBe(3);
    expect(templateFor(snap, 'SCHEMA_JSON', 'LOAN', 'OTHER')?.templateId).toBe(1);
    expect(templateFor(snap, 'TEXT', 'LOAN', 'GATE')).toBeUndefined();
  });
});
