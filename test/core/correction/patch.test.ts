import {
  coercePatchValue,
  isRetryRequest,
  normalizeFieldKey,
  parseFieldPatch,
  readFieldPatch,
} from '../../../core/correction/patch';
import { schemaFieldDetails } from '../../../core/schema/completeness';

const details = schemaFieldDetails({
  type: 'object',
  properties: {
    customerId: { type: 'string', description: 'Customer id, e.g. 1234' },
    requestedAmount: { type: 'number', description: 'Requested loan amount' },
    tenureMonths: { type: 'integer' },
    vip: { type: 'boolean' },
  },
});

describe('single-field edit patches (§5.3)', () => {
  it.each([
    ['change amount to 350000', { field: 'requestedAmount', value: 350000 }],
    ['Oh wait, change amount to 350000.', { field: 'requestedAmount', value: 350000 }],
    ['set the tenure months to 36 please', { field: 'tenureMonths', value: 36 }],
    ['update vip to yes', { field: 'vip', value: true }],
    ['make customer id as C-77!', { field: 'customerId', value: 'C-77' }],
    ['tenuremonths: 12', { field: 'tenureMonths', value: 12 }],
  ])('"%s"', (text, patch) => {
    expect(parseFieldPatch(text, details)).toEqual(patch);
  });

  it.each(['change my mind to something else', 'change amount to lots', 'hello there', ''])(
    'no patch for "%s"',
    (text) => {
      expect(parseFieldPatch(text, details)).toBeNull();
    }
  );

  describe('matching by key, its words, title and description (issue 14 item 3)', () => {
    const claim = schemaFieldDetails({
      type: 'object',
      properties: {
        estimated_cost: { type: 'number', description: 'Repair cost the assessor expects, in EUR' },
        policyNumber: { type: 'string', title: 'Policy', description: 'Insurance policy reference' },
        incident_date: { type: 'string', description: 'When the damage happened' },
        deductible: { type: 'number', title: 'Excess' },
      },
    });
    it.each([
      ['change the estimated cost to 240', { field: 'estimated_cost', value: 240 }],
      ['set estimated_cost to 240', { field: 'estimated_cost', value: 240 }],
      ['change the cost to 99.5', { field: 'estimated_cost', value: 99.5 }],
      ['update the policy to P-991', { field: 'policyNumber', value: 'P-991' }],
      ['change the policy number to P-1', { field: 'policyNumber', value: 'P-1' }],
      ['set the excess to 150', { field: 'deductible', value: 150 }],
      ['change when the damage happened to 2026-03-01', { field: 'incident_date', value: '2026-03-01' }],
      ['estimated cost 300', { field: 'estimated_cost', value: 300 }],
      ['actually the incident date is 2026-01-02', { field: 'incident_date', value: '2026-01-02' }],
    ])('"%s"', (text, patch) => {
      expect(parseFieldPatch(text, claim)).toEqual(patch);
    });
  });

  describe('a number value is one number as the user wrote it, else no patch (outsider report item 1)', () => {
    it.each([
      ['change amount to 350k', { field: 'requestedAmount', value: 350000 }],
      ['change amount to 3.5e5', { field: 'requestedAmount', value: 350000 }],
      ['change amount to 350,000.', { field: 'requestedAmount', value: 350000 }],
      ['set the tenure months to 36 months please', { field: 'tenureMonths', value: 36 }],
      ['change tenure to 1.5k', { field: 'tenureMonths', value: 1500 }],
    ])('"%s"', (text, patch) => {
      expect(parseFieldPatch(text, details)).toEqual(patch);
    });

    it.each([
      'change amount to 35000 or maybe 40000',
      'change tenure to 1 year 6 months',
      'change tenure to 2 years',
      'change tenure to 18m',
      'change tenure to 24.5',
      'change tenure to 1e20',
      'change amount to 350000 dollars',
      'change amount to 1e400',
      'change tenure months to 1 year 6 months',
    ])('no patch for "%s"', (text) => {
      expect(parseFieldPatch(text, details)).toBeNull();
    });

    it.each([
      ['change amount to 35000 or maybe 40000', 'requestedAmount', '35000 or maybe 40000', 'NOT_ONE_NUMBER'],
      ['change tenure to 1 year 6 months.', 'tenureMonths', '1 year 6 months', 'NOT_ONE_NUMBER'],
      ['Oh wait, change amount to lots!', 'requestedAmount', 'lots', 'NOT_ONE_NUMBER'],
      ['set the tenure months to 24.5', 'tenureMonths', '24.5', 'NOT_A_WHOLE_NUMBER'],
      ['change tenure to 1e20', 'tenureMonths', '1e20', 'OUT_OF_RANGE'],
      ['update vip to maybe', 'vip', 'maybe', 'NOT_YES_OR_NO'],
      ['tenure months: two years', 'tenureMonths', 'two years', 'NOT_ONE_NUMBER'],
    ])('"%s" names %s but its value %p is refused: %s', (text, field, value, reason) => {
      expect(readFieldPatch(text, details)).toEqual({ refused: { field, text: value, reason } });
    });

    it('reads a patch, or nothing at all when no field is named, as before', () => {
      expect(readFieldPatch('change amount to 350k', details)).toEqual({
        patch: { field: 'requestedAmount', value: 350000 },
      });
      expect(readFieldPatch('change my mind to something else', details)).toBeNull();
      expect(readFieldPatch('change amount to ', details)).toBeNull();
    });

    it('an integer field takes only whole numbers', () => {
      const integer = { description: 'Loan tenure in months', type: 'integer', enumOptions: [] };
      expect(coercePatchValue('24.0', integer, 'tenureMonths')).toBe(24);
      expect(coercePatchValue('24 months', integer, 'tenureMonths')).toBe(24);
      expect(coercePatchValue('2.4e1', integer, 'tenureMonths')).toBe(24);
      expect(coercePatchValue('24.5', integer, 'tenureMonths')).toBeUndefined();
      expect(coercePatchValue('9007199254740993', integer, 'tenureMonths')).toBeUndefined();
    });
  });

  it('coerces by type and normalizes field keys', () => {
    expect(coercePatchValue(' = 1,250.50.', { description: null, type: 'number', enumOptions: [] })).toBe(1250.5);
    expect(coercePatchValue('maybe', { description: null, type: 'boolean', enumOptions: [] })).toBeUndefined();
    expect(coercePatchValue(': Oslo?', undefined)).toBe('Oslo');
    expect(normalizeFieldKey('requestedAmount')).toBe('requestedamount');
  });

  it('recognises retry requests only as the whole message', () => {
    expect(isRetryRequest('Try again!')).toBe(true);
    expect(isRetryRequest(' please retry ')).toBe(true);
    expect(isRetryRequest('try again later with another card')).toBe(false);
  });
});
