/**
 * Where UTF-8 text goes wrong, for an error that says where: a fatal TextDecoder says only that it does. The
 * offset is that of the first byte of the first ill-formed sequence: a byte no character starts with (0x80–0xC1,
 * 0xF5–0xFF), or one whose continuation is missing or out of range (Unicode Table 3-7: no overlong form, no
 * surrogate, nothing past U+10FFFF). -1 when all of `bytes` is well-formed.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    const length = lead < 0x80 ? 1 : lead < 0xc2 ? 0 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : lead < 0xf5 ? 4 : 0;
    if (length === 0) return i;
    // Only the second byte's range depends on the lead; the others are 0x80–0xBF.
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k < length; k++) {
      const byte = bytes[i + k];
      if (byte === undefined || byte < (k === 1 ? low : 0x80) || byte > (k === 1 ? high : 0xbf)) return i;
    }
    i += length;
  }
  return -1;
}

/** Where byte `offset` of `bytes` is, as an editor counts: line and column from 1, a column counted in bytes. */
export function bytePosition(bytes: Uint8Array, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
