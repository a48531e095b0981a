import fc from 'fast-check';
import { parseUserNumber, unitWord } from '../../../core/correction/user-number';

const none = new Set<string>();
const months = new Set(['tenure', 'month'].map(unitWord));
const eur = new Set(['cost', 'eur']);

/** 1234567 → "1,234,567". */
const grouped = (n: bigint) => n.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');

describe('one number as a user writes it (correction values)', () => {
  it.each([
    ['350000', 350000],
    ['350,000', 350000],
    ['1,250.50', 1250.5],
    ['-3', -3],
    ['+7', 7],
    ['.5', 0.5],
    ['3.5e5', 350000],
    ['3.5E-1', 0.35],
    ['350k', 350000],
    ['350K', 350000],
    ['1.5k', 1500],
    ['350 k', 350000],
    ['350 thousand', 350000],
    ['1.2 million', 1200000],
    ['2 billion', 2000000000],
    ['1.1k', 1100],
    ['350000 please', 350000],
    ['please 350000 instead', 350000],
  ])('%p is %p', (text, value) => {
    expect(parseUserNumber(text, none)).toBe(value);
  });

  it.each([
    ['36 months', months, 36],
    ['1 month', months, 1],
    ['1200 EUR', eur, 1200],
    ['€1,200', eur, 1200],
    ['1200 euros', eur, 1200],
  ])("%p repeats the field's own unit", (text, units, value) => {
    expect(parseUserNumber(text, units)).toBe(value);
  });

  it.each([
    ['35000 or maybe 40000', none],
    ['35000 40000', none],
    ['30000-40000', none],
    ['1 year 6 months', months],
    ['2 years', months],
    ['18m', months],
    ['350 m', none],
    ['$350,000', none],
    ['1200 USD', eur],
    ['35,00', none],
    ['1.250,50', none],
    ['1,2345', none],
    ['about 350000', none],
    ['350kk', none],
    ['3.5e5k', none],
    ['350k thousand', none],
    ['thousand 350', none],
    ['1e400', none],
    ['1e-400', none],
    ['1e99999', none],
    ['lots', none],
    ['', none],
    ['constructor', none],
    ['5 constructor', none],
    ['2026-03-01', none],
  ])('refuses %p', (text, units) => {
    expect(parseUserNumber(text, units)).toBeUndefined();
  });

  it('reads any integer, with or without thousands separators, as itself', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), (n) => {
        expect(parseUserNumber(n.toString(), none)).toBe(Number(n));
        const sign = n < 0n ? '-' : '';
        expect(parseUserNumber(sign + grouped(n < 0n ? -n : n), none)).toBe(Number(n));
      })
    );
  });

  it('reads any decimal as JavaScript reads its text, and scales k exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 9 }), fc.integer({ min: 0, max: 9999 }), (whole, fraction) => {
        const text = `${whole}.${String(fraction).padStart(4, '0')}`;
        expect(parseUserNumber(text, none)).toBe(Number(text));
        expect(parseUserNumber(`${text}k`, none)).toBe(Number(`${text}e3`));
      })
    );
  });

  it('refuses two numbers whatever joins them', () => {
    const joiner = fc.constantFrom(' ', ' or ', ' to ', ', ', ' and ', ' or maybe ', '-', ' / ');
    fc.assert(
      fc.property(fc.nat(), joiner, fc.nat(), (a, join, b) => {
        expect(parseUserNumber(`${a}${join}${b}`, none)).toBeUndefined();
      })
    );
  });

  it('never yields anything but a finite number or nothing, for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789.,-+eEkKm $€ month year'.split('')) }), (text) => {
        const n = parseUserNumber(text, months);
        expect(n === undefined || Number.isFinite(n)).toBe(true);
      }),
      { numRuns: 2000 }
    );
  });
});
