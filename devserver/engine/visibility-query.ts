/**
 * Parser for the subset of Temporal's list-filter language the dev server supports:
 * comparisons (= != <> < > <= >=), IN / NOT IN, BETWEEN, IS [NOT] NULL, STARTS_WITH, AND / OR /
 * NOT with parentheses, ORDER BY and GROUP BY (CountWorkflowExecutions).
 */
import { invalidArgument } from '../errors';

export type Literal = string | number | boolean;
export type ComparisonOperator = '=' | '!=' | '<' | '>' | '<=' | '>=';

export type FilterExpression =
  | { kind: 'and' | 'or'; left: FilterExpression; right: FilterExpression }
  | { kind: 'not'; operand: FilterExpression }
  | { kind: 'compare'; field: string; operator: ComparisonOperator; value: Literal }
  | { kind: 'in'; field: string; values: Literal[]; negated: boolean }
  | { kind: 'between'; field: string; low: Literal; high: Literal; negated: boolean }
  | { kind: 'null'; field: string; negated: boolean }
  | { kind: 'startsWith'; field: string; prefix: Literal };

export interface ParsedQuery {
  filter?: FilterExpression;
  orderBy: { field: string; descending: boolean }[];
  groupBy?: string;
}

type Token =
  | { type: 'ident'; text: string }
  | { type: 'string'; value: string }
  | { type: 'number'; value: number }
  | { type: 'op'; text: string }
  | { type: 'eof' };

const KEYWORDS = new Set([
  'AND',
  'OR',
  'NOT',
  'IN',
  'BETWEEN',
  'IS',
  'NULL',
  'ORDER',
  'BY',
  'GROUP',
  'ASC',
  'DESC',
  'STARTS_WITH',
  'TRUE',
  'FALSE',
]);

function queryError(message: string): Error {
  return invalidArgument(`invalid query: ${message}`);
}

function readQuoted(input: string, start: number): { value: string; end: number } {
  const quote = input[start] as string;
  let value = '';
  let i = start + 1;
  while (i < input.length) {
    const ch = input[i] as string;
    if (ch === '\\' && i + 1 < input.length) {
      value += input[i + 1];
      i += 2;
    } else if (ch === quote && input[i + 1] === quote) {
      value += quote;
      i += 2;
    } else if (ch === quote) {
      return { value, end: i + 1 };
    } else {
      value += ch;
      i++;
    }
  }
  throw queryError('unterminated string literal');
}

export function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i] as string;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === "'" || ch === '"') {
      const { value, end } = readQuoted(input, i);
      tokens.push({ type: 'string', value });
      i = end;
    } else if (ch === '`') {
      const end = input.indexOf('`', i + 1);
      if (end < 0) throw queryError('unterminated identifier');
      tokens.push({ type: 'ident', text: input.slice(i + 1, end) });
      i = end + 1;
    } else if (/[0-9-]/.test(ch)) {
      const match = /^-?\d+(\.\d+)?/.exec(input.slice(i));
      if (!match) throw queryError(`unexpected character ${ch}`);
      tokens.push({ type: 'number', value: Number(match[0]) });
      i += match[0].length;
    } else if (/[A-Za-z_]/.test(ch)) {
      const match = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(input.slice(i)) as RegExpExecArray;
      tokens.push({ type: 'ident', text: match[0] });
      i += match[0].length;
    } else {
      const two = input.slice(i, i + 2);
      const op = ['!=', '<>', '<=', '>='].includes(two) ? two : ch;
      if (!['=', '!=', '<>', '<', '>', '<=', '>=', '(', ')', ','].includes(op))
        throw queryError(`unexpected character ${ch}`);
      tokens.push({ type: 'op', text: op === '<>' ? '!=' : op });
      i += op.length;
    }
  }
  tokens.push({ type: 'eof' });
  return tokens;
}

class Parser {
  private position = 0;

  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.position] as Token;
  }

  private next(): Token {
    return this.tokens[this.position++] as Token;
  }

  private isKeyword(word: string, token = this.peek()): boolean {
    return token.type === 'ident' && token.text.toUpperCase() === word;
  }

  private acceptKeyword(word: string): boolean {
    if (!this.isKeyword(word)) return false;
    this.position++;
    return true;
  }

  private expectKeyword(word: string): void {
    if (!this.acceptKeyword(word)) throw queryError(`expected ${word}`);
  }

  private acceptOp(op: string): boolean {
    const token = this.peek();
    if (token.type !== 'op' || token.text !== op) return false;
    this.position++;
    return true;
  }

  private expectOp(op: string): void {
    if (!this.acceptOp(op)) throw queryError(`expected "${op}"`);
  }

  parse(): ParsedQuery {
    const query: ParsedQuery = { orderBy: [] };
    if (!this.isKeyword('ORDER') && !this.isKeyword('GROUP') && this.peek().type !== 'eof') query.filter = this.or();
    if (this.acceptKeyword('ORDER')) {
      this.expectKeyword('BY');
      do {
        const field = this.field();
        const descending = this.acceptKeyword('DESC') ? true : (this.acceptKeyword('ASC'), false);
        query.orderBy.push({ field, descending });
      } while (this.acceptOp(','));
    }
    if (this.acceptKeyword('GROUP')) {
      this.expectKeyword('BY');
      query.groupBy = this.field();
    }
    if (this.peek().type !== 'eof') throw queryError('unexpected trailing input');
    return query;
  }

  private or(): FilterExpression {
    let left = this.and();
    while (this.acceptKeyword('OR')) left = { kind: 'or', left, right: this.and() };
    return left;
  }

  private and(): FilterExpression {
    let left = this.unary();
    while (this.acceptKeyword('AND')) left = { kind: 'and', left, right: this.unary() };
    return left;
  }

  private unary(): FilterExpression {
    if (this.acceptKeyword('NOT')) return { kind: 'not', operand: this.unary() };
    if (this.acceptOp('(')) {
      const inner = this.or();
      this.expectOp(')');
      return inner;
    }
    return this.predicate();
  }

  private field(): string {
    const token = this.next();
    if (token.type !== 'ident' || KEYWORDS.has(token.text.toUpperCase()))
      throw queryError('expected a search attribute name');
    return token.text;
  }

  private literal(): Literal {
    const token = this.next();
    if (token.type === 'string' || token.type === 'number') return token.value;
    if (this.isKeyword('TRUE', token)) return true;
    if (this.isKeyword('FALSE', token)) return false;
    throw queryError('expected a value');
  }

  private predicate(): FilterExpression {
    const field = this.field();
    const token = this.peek();
    if (token.type === 'op' && ['=', '!=', '<', '>', '<=', '>='].includes(token.text)) {
      this.position++;
      return { kind: 'compare', field, operator: token.text as ComparisonOperator, value: this.literal() };
    }
    if (this.acceptKeyword('STARTS_WITH')) return { kind: 'startsWith', field, prefix: this.literal() };
    if (this.acceptKeyword('IS')) {
      const negated = this.acceptKeyword('NOT');
      this.expectKeyword('NULL');
      return { kind: 'null', field, negated };
    }
    const negated = this.acceptKeyword('NOT');
    if (this.acceptKeyword('IN')) {
      this.expectOp('(');
      const values = [this.literal()];
      while (this.acceptOp(',')) values.push(this.literal());
      this.expectOp(')');
      return { kind: 'in', field, values, negated };
    }
    if (this.acceptKeyword('BETWEEN')) {
      const low = this.literal();
      this.expectKeyword('AND');
      return { kind: 'between', field, low, high: this.literal(), negated };
    }
    throw queryError(`expected an operator after ${field}`);
  }
}

export function parseVisibilityQuery(input: string | undefined): ParsedQuery {
  return new Parser(tokenize(input ?? '')).parse();
}

/** Every attribute name the query mentions, for validation against the registry. */
export function referencedFields(query: ParsedQuery): string[] {
  const fields: string[] = query.orderBy.map((o) => o.field);
  if (query.groupBy) fields.push(query.groupBy);
  const visit = (expression: FilterExpression | undefined): void => {
    if (!expression) return;
    switch (expression.kind) {
      case 'and':
      case 'or':
        visit(expression.left);
        visit(expression.right);
        break;
      case 'not':
        visit(expression.operand);
        break;
      default:
        fields.push(expression.field);
    }
  };
  visit(query.filter);
  return fields;
}
