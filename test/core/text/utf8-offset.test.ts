import { bytePosition, firstInvalidUtf8 } from '../../../core/text/utf8-offset';

const bytes = (...b: number[]) => Uint8Array.from(b);

/** core/text/utf8-offset.ts: where a table file that is not UTF-8 goes wrong. */
describe('firstInvalidUtf8', () => {
  it('finds nothing wrong in well-formed text, whatever its characters', () => {
    expect(firstInvalidUtf8(new TextEncoder().encode('- intent_code: CAFÉ\n  description: 日本 😀 ok\n'))).toBe(-1);
    expect(firstInvalidUtf8(bytes())).toBe(-1);
  });

  it.each([
    ['a Latin-1 é', bytes(0x61, 0x0a, 0x63, 0x61, 0x66, 0xe9, 0x0a), 5],
    ['a UTF-16 byte-order mark', bytes(0xff, 0xfe, 0x2d, 0x00), 0],
    ['a stray continuation byte', bytes(0x61, 0x80), 1],
    ['a lead byte whose continuation is missing', bytes(0x61, 0xc3, 0x28), 1],
    ['a sequence cut short by the end', bytes(0x61, 0xe2, 0x82), 1],
    ['an overlong form', bytes(0xc0, 0xaf), 0],
    ['an overlong three-byte form', bytes(0x61, 0xe0, 0x80, 0xaf), 1],
    ['a surrogate', bytes(0xed, 0xa0, 0x80), 0],
    ['a code point past U+10FFFF', bytes(0x61, 0x61, 0xf4, 0x90, 0x80, 0x80), 2],
  ])('points at %s', (_what, input, offset) => {
    expect(firstInvalidUtf8(input)).toBe(offset);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(input)).toThrow();
  });

  it('counts lines and byte columns from 1', () => {
    const input = new TextEncoder().encode('ab\ncdé\nx');
    expect(bytePosition(input, 0)).toEqual({ line: 1, column: 1 });
    expect(bytePosition(input, 7)).toEqual({ line: 2, column: 5 });
    expect(bytePosition(input, 8)).toEqual({ line: 3, column: 1 });
  });
});
