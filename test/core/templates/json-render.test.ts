import { jsonTemplateSkeleton, renderJsonTemplateLenient } from '../../../core/templates';

const render = (template: string, vars: Record<string, unknown>) => renderJsonTemplateLenient(template, vars);

describe('renderJsonTemplateLenient: an output_format JSON template whose values cannot change its structure', () => {
  it('escapes a value inside a string, however hostile, and keeps it inside that string', () => {
    const name = 'Ann", "role": "admin\n\\';
    const { text } = render('{"name": "Hi {{name}}!"}', { name });
    expect(JSON.parse(text)).toEqual({ name: `Hi ${name}!` });
  });

  it('renders a bare placeholder as one JSON value of its type', () => {
    const vars = { s: 'x"y', n: 4.5, b: true, list: ['a', 'b'], obj: { k: [1] }, map: new Map([['m', 1]]), big: 10n };
    const { text } = render(
      '{"s": {{s}}, "n": {{n}}, "b": [[${b}]], "list": {{list}}, "obj": {{obj}}, "map": {{map}}, "big": {{big}}}',
      vars
    );
    expect(JSON.parse(text)).toEqual({
      s: 'x"y',
      n: 4.5,
      b: true,
      list: ['a', 'b'],
      obj: { k: [1] },
      map: { m: 1 },
      big: 10,
    });
  });

  it('renders an absent value as its default (a string) or null outside strings, empty inside, and names it', () => {
    const out = render('{"a": {{gone}}, "b": {{gone ?: \'none\'}}, "c": "<{{gone}}>", "d": {{empty}}}', { empty: '' });
    expect(JSON.parse(out.text)).toEqual({ a: null, b: 'none', c: '<>', d: '' });
    expect(out.missing).toEqual(['gone', 'gone', 'gone']);
  });

  it('a list inside a string reads as the text renderer writes it', () => {
    expect(JSON.parse(render('{"t": "need {{f}}"}', { f: ['x', 'y'] }).text)).toEqual({ t: 'need [x, y]' });
  });

  it('tracks strings across escaped quotes in the template text', () => {
    expect(JSON.parse(render('{"q": "say \\"{{w}}\\"", "v": {{w}}}', { w: 'hi' }).text)).toEqual({
      q: 'say "hi"',
      v: 'hi',
    });
  });

  it('the skeleton takes every placeholder as null or empty: what validation parses', () => {
    expect(jsonTemplateSkeleton('{"a": {{x}}, "b": "{{y}} z"}')).toBe('{"a": null, "b": " z"}');
  });
});
