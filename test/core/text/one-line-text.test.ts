import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { oneLineText } from '../../../core/text/one-line-text';

describe('oneLineText', () => {
  it('shows each bidirectional and control character as its code point', () => {
    const controls = [
      '\u0000',
      '\u001b',
      '\u007f',
      '\u009b',
      '\u061c',
      '\u200e',
      '\u200f',
      '\u202a',
      '\u202e',
      '\u2066',
      '\u2069',
    ];
    expect(oneLineText(`a${controls.join('')}b`)).toBe(
      'a⟨U+0000⟩⟨U+001B⟩⟨U+007F⟩⟨U+009B⟩⟨U+061C⟩⟨U+200E⟩⟨U+200F⟩⟨U+202A⟩⟨U+202E⟩⟨U+2066⟩⟨U+2069⟩b'
    );
  });

  it('keeps other text as it is, emoji and right-to-left script included', () => {
    expect(oneLineText('שלום 👩‍👩‍👧 café')).toBe('שלום 👩‍👩‍👧 café');
  });

  it('shows zero-width and other invisible characters, and tag characters, as their code points', () => {
    const hidden = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u2028', '\u{e0001}', '\u{e0000}'];
    expect(oneLineText(`a${hidden.join('')}b`)).toBe(
      'a⟨U+200B⟩⟨U+200C⟩⟨U+200D⟩⟨U+2060⟩⟨U+FEFF⟩⟨U+00AD⟩⟨U+2028⟩⟨U+E0001⟩⟨U+E0000⟩b'
    );
    // Text spelled in tag characters ("hi"), after an emoji too: it would ride along unseen.
    expect(oneLineText('ok\u{e0068}\u{e0069}')).toBe('ok⟨U+E0068⟩⟨U+E0069⟩');
    expect(oneLineText('🏴\u{e0068}\u{e0069}\u{e007f}')).toBe('🏴⟨U+E0068⟩⟨U+E0069⟩⟨U+E007F⟩');
  });

  it('keeps a zero-width joiner only where it joins two emoji into one', () => {
    const joined = [
      '👨\u200d👩\u200d👧\u200d👦', // family
      '👩\u200d⚕\ufe0f', // health worker: the second emoji's presentation selector follows it
      '👩🏽\u200d💻', // technologist with a skin tone
      '🏳\ufe0f\u200d🌈', // rainbow flag: the first emoji's presentation selector precedes the joiner
    ];
    for (const emoji of joined) expect(oneLineText(`x ${emoji} y`)).toBe(`x ${emoji} y`);
    expect(oneLineText('pay\u200dpal 😀\u200d a\u200d😀')).toBe('pay⟨U+200D⟩pal 😀⟨U+200D⟩ a⟨U+200D⟩😀');
  });

  it('keeps a non-joiner or joiner between two letters of a script whose spelling uses it, and shows it elsewhere', () => {
    const written = [
      'می\u200cخواهم', // Persian "I want": the non-joiner keeps the two parts apart
      'क्\u200dष', // Devanagari: the joiner asks for the half form
      'ক্\u200cষ', // Bengali: the non-joiner asks for the visible virama
      'ܐ\u200dܒ', // Syriac
    ];
    for (const text of written) expect(oneLineText(text)).toBe(text);
    expect(oneLineText('a\u200cb م\u200cx क\u200d م\u200dक')).toBe('a⟨U+200C⟩b م⟨U+200C⟩x क⟨U+200D⟩ م⟨U+200D⟩क');
  });

  it('keeps one variation selector after a character it has a form for, and shows every other', () => {
    const written = ['❤\ufe0f', '☺\ufe0e', '1\ufe0f\u20e3', '葛\u{e0100}', '漢\ufe00', 'ᠠ\u180b', '🏳\ufe0f\u200d🌈'];
    for (const text of written) expect(oneLineText(`x ${text} y`)).toBe(`x ${text} y`);
    // Bytes smuggled as a run of selectors after an emoji, or after a letter: each is shown.
    expect(oneLineText('😀\ufe0f\u{e0150}\u{e0161}')).toBe('😀\ufe0f⟨U+E0150⟩⟨U+E0161⟩');
    expect(oneLineText('a\ufe0fb\u{e0100}')).toBe('a⟨U+FE0F⟩b⟨U+E0100⟩');
  });

  it('keeps the tag characters of the England, Scotland and Wales flags, and no other', () => {
    const flags = ['gbeng', 'gbsct', 'gbwls'].map((code) => `🏴${tags(code)}\u{e007f}`);
    expect(oneLineText(flags.join(' '))).toBe(flags.join(' '));
    expect(oneLineText(`🏴${tags('gbeng')}`)).toBe('🏴⟨U+E0067⟩⟨U+E0062⟩⟨U+E0065⟩⟨U+E006E⟩⟨U+E0067⟩');
    expect(oneLineText(`🏴${tags('usca')}\u{e007f}`)).toBe('🏴⟨U+E0075⟩⟨U+E0073⟩⟨U+E0063⟩⟨U+E0061⟩⟨U+E007F⟩');
  });

  it("is what the console shows (console/lib/dom.js visible, the browser's copy), but for line breaks", () => {
    const samples = [
      'a\u202eb\u0007c\u009b',
      `x\u200b\u2060\ufeff 👩\u200d💻 a\u200db 🏴${tags('gbsct')}\u{e007f} ok${tags('hi')}`,
      '🏳\ufe0f\u200d🌈 \u00ad\u2029 שלום',
      'می\u200cخواهم a\u200cb क्\u200dष ❤\ufe0f 😀\ufe0f\u{e0150} a\ufe0f 葛\u{e0100}',
    ];
    expect(consoleVisible(samples)).toEqual(samples.map((text) => oneLineText(text)));
  });

  it('joins lines with a space and cuts without splitting a character', () => {
    expect(oneLineText(' one\r\n\ttwo\rthree ')).toBe('one two three');
    expect(oneLineText('ab😀cd', 3)).toBe('ab…');
  });
});

/** `text` spelled in tag characters (U+E0020–U+E007E mirror ASCII). */
function tags(text: string): string {
  return [...text].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
}

/** What console/lib/dom.js `visible` shows for each text: a browser ES module, so imported by a child Node. */
function consoleVisible(texts: string[]): string[] {
  const dom = pathToFileURL(join(__dirname, '..', '..', '..', 'console', 'lib', 'dom.js')).href;
  const script = `import { visible } from '${dom}'; process.stdout.write(JSON.stringify(${JSON.stringify(texts)}.map(visible)));`;
  const out = execFileSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return JSON.parse(out) as string[];
}
