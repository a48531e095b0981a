import type { CliIo } from './command';

/**
 * What JSON.stringify leaves as it is but a terminal obeys or hides: DEL and the C1 controls (U+009B starts an
 * escape sequence), the format characters (Cf: the bidirectional marks, embeddings, overrides and isolates, which
 * reorder the rest of the line; zero-width spaces and joiners, U+FEFF, the tag characters), the line and
 * paragraph separators and the variation selectors (a run of them carries bytes unseen). They only ever stand inside a JSON string, where `\uXXXX` is the same character.
 */
// eslint-disable-next-line no-misleading-character-class -- each selector is matched alone, as it stands
const HIDDEN = /[\u007f-\u009f\p{Cf}\u2028\u2029\u180b-\u180f\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/gu;

const escaped = (c: string): string =>
  Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');

/**
 * `value` as one line of JSON a terminal shows as written: the same JSON value as JSON.stringify gives (it parses
 * back equal), with every character in HIDDEN escaped. Users, models and tools write the strings the CLI prints.
 */
export function jsonLine(value: object): string {
  return JSON.stringify(value).replace(HIDDEN, escaped);
}

/** Every `--json` line a CLI command prints goes through here. */
export function outJson(io: CliIo, value: object): void {
  io.out(jsonLine(value));
}
