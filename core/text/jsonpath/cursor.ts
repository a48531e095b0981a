import { JsonPathSyntaxError } from './ast';

/**
 * How deep a filter's parentheses, `!`, `[…]` lists and filters inside filters may nest. The parser and evaluator
 * recurse once a level, so without a bound 20,000 `(` exhausted the stack and validation showed "Maximum call stack
 * size exceeded"; no real filter comes near it.
 */
export const MAX_JSONPATH_NESTING = 64;

/** A read position in a path string, shared by the path and filter-expression parsers. */
export class Cursor {
  pos = 0;
  private depth = 0;
  constructor(readonly text: string) {}

  /** Runs `parse` one nesting level down; refuses past MAX_JSONPATH_NESTING levels. */
  nested<T>(parse: () => T): T {
    if (this.depth >= MAX_JSONPATH_NESTING) {
      throw this.error(
        `expression nested too deeply (at most ${MAX_JSONPATH_NESTING} levels of parentheses, "!", lists and filters)`
      );
    }
    this.depth++;
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  get done(): boolean {
    return this.pos >= this.text.length;
  }

  peek(offset = 0): string {
    return this.text[this.pos + offset] ?? '';
  }

  startsWith(token: string): boolean {
    return this.text.startsWith(token, this.pos);
  }

  /** Consumes `token` if it is next; returns whether it did. */
  eat(token: string): boolean {
    if (!this.startsWith(token)) return false;
    this.pos += token.length;
    return true;
  }

  expect(token: string, what = `"${token}"`): void {
    if (!this.eat(token)) throw this.error(`expected ${what}${this.done ? ' but the path ended' : ''}`);
  }

  skipSpaces(): void {
    while (!this.done && /\s/.test(this.peek())) this.pos++;
  }

  error(reason: string): JsonPathSyntaxError {
    return new JsonPathSyntaxError(this.text, this.pos, reason);
  }

  /** Reads a quoted string starting at the opening quote; supports backslash escapes. */
  readQuoted(): string {
    const quote = this.peek();
    this.pos++;
    let out = '';
    while (!this.done && this.peek() !== quote) {
      let ch = this.peek();
      if (ch === '\\') {
        this.pos++;
        ch = this.peek();
        if (this.done) break;
      }
      out += ch;
      this.pos++;
    }
    if (this.done) throw this.error(`unterminated string (missing ${quote})`);
    this.pos++;
    return out;
  }

  /** Reads an optionally signed integer; null when there is none here. */
  readInteger(): number | null {
    const m = /^-?\d+/.exec(this.text.slice(this.pos));
    if (!m) return null;
    this.pos += m[0].length;
    return Number(m[0]);
  }
}
