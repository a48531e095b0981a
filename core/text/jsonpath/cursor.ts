import { JsonPathSyntaxError } from './ast';

/** A read position in a path string, shared by the path and filter-expression parsers. */
export class Cursor {
  pos = 0;
  constructor(readonly text: string) {}

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
