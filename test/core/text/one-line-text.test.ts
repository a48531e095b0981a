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

  it('joins lines with a space and cuts without splitting a character', () => {
    expect(oneLineText(' one\r\n\ttwo\rthree ')).toBe('one two three');
    expect(oneLineText('ab😀cd', 3)).toBe('ab…');
  });
});
