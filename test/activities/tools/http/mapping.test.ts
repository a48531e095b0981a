import { mapResponse } from '../../../../activities/tools/http/mapping';

describe('mapResponse on a large body (activities/tools/http/mapping.ts)', () => {
  // A write tool's POST is applied before its body is mapped: a RangeError here failed the turn after the write.
  const prices = Array.from({ length: 130_000 }, (_, i) => i % 1000);
  const body = JSON.stringify({ prices, items: prices.map((p) => ({ p })) });

  it('maps JSON_PATH and FIELD_TEMPLATE aggregates over 130,000 values', () => {
    expect(body.length).toBeGreaterThan(260_000);
    expect(mapResponse('quote', { kind: 'JSON_PATH', path: '$.prices.max()' }, body)).toBe(999);
    expect(
      mapResponse('quote', { kind: 'FIELD_TEMPLATE', fields: { low: '$.prices.min()', last: '$.items[-1:]' } }, body)
    ).toEqual({ low: 0, last: { p: 999 } });
  });
});
