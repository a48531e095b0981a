import { bindNamedParams, SqlLexError, SqlParamError, tokenizeSql, toPositionalParams } from '../../../core/sql';

describe('SQL lexer', () => {
  it('round-trips the input and classifies literals, comments and parameters', () => {
    const sql = 'select \'a:b\', "x:y", $$:z$$, a::int, :name -- :c\n/* :d */ from t where b = $1';
    const tokens = tokenizeSql(sql);
    expect(tokens.map((t) => t.text).join('')).toBe(sql);
    const kinds = tokens.filter((t) => t.kind !== 'space').map((t) => `${t.kind}:${t.text}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        "string:'a:b'",
        'quoted_ident:"x:y"',
        'string:$$:z$$',
        'operator:::',
        'named_param::name',
      ])
    );
    expect(kinds).toContain('comment:-- :c');
    expect(kinds).toContain('positional_param:$1');
  });

  it('handles doubled quotes, E-strings and nested block comments', () => {
    const tokens = tokenizeSql("select 'it''s', E'a\\'b', /* a /* b */ c */ 1");
    expect(tokens.filter((t) => t.kind === 'string').map((t) => t.text)).toEqual(["'it''s'", "E'a\\'b'"]);
    expect(tokens.filter((t) => t.kind === 'comment')).toHaveLength(1);
  });

  it('rejects unterminated literals with the position', () => {
    expect(() => tokenizeSql("select 'abc")).toThrow(SqlLexError);
    expect(() => tokenizeSql('select $tag$ never closed')).toThrow('unterminated dollar-quoted string');
  });
});

describe('named parameters', () => {
  it('converts :name to $n outside literals, reusing positions for repeated names', () => {
    const out = toPositionalParams("select * from t where a = :a and b = :b and c = :a and d = ':a' and e::text = 'x'");
    expect(out.sql).toBe("select * from t where a = $1 and b = $2 and c = $1 and d = ':a' and e::text = 'x'");
    expect(out.names).toEqual(['a', 'b']);
  });

  it('binds values in position order and reports every missing parameter', () => {
    const bound = bindNamedParams('select :x, :y, :x', { y: 2, x: 'one', unused: true });
    expect(bound).toEqual({ text: 'select $1, $2, $1', values: ['one', 2], names: ['x', 'y'] });
    expect(() => bindNamedParams('select :x, :y, :z', { y: null })).toThrow(
      'Missing value for SQL parameter(s): :x, :z'
    );
  });

  it('refuses positional parameters in tool SQL and mixed styles', () => {
    expect(() => bindNamedParams('select $1', {})).toThrow(SqlParamError);
    expect(() => toPositionalParams('select :a, $1')).toThrow('mixes named');
  });
});
