import { Writable } from 'node:stream';

export interface LogCapture {
  /** A pino destination that keeps every line written. */
  stream: Writable;
  raw(): string;
  /** The JSON lines written so far, parsed. */
  lines(): Record<string, unknown>[];
}

export function captureLog(): LogCapture {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return {
    stream,
    raw: () => text,
    lines: () =>
      text
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
