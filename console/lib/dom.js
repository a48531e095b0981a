/**
 * A tiny element builder: `h('a', { href }, 'text', child)`. Text is always set as text, never
 * parsed as HTML, so conversation content cannot inject markup.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'class') el.className = value;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/**
 * What the reader cannot see or would see obeyed, as text may carry it from a user or a tool: control characters, the
 * format characters (Cf: the bidirectional controls, zero-width space, non-joiner and joiner, the word joiner, U+FEFF,
 * the tag characters), the whole tag block, the line and paragraph separators and the variation selectors. Inserted as they are, an override
 * reorders what the operator reads (`‮txt.exe` shows as `exe.txt`) and tag characters spell text no one sees; they
 * are shown as what they are instead. The same rule as core/text/one-line-text.ts (the CLI's; this is the browser's
 * copy, which loads no TypeScript), but that tab and line breaks stay: the page lays them out.
 */
const HIDDEN =
  // eslint-disable-next-line no-control-regex, no-misleading-character-class -- finding them is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\p{Cf}\u2028\u2029\u{e0000}-\u{e007f}\u180b-\u180f\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/u;

/**
 * Kept, as nothing is hidden in them: a zero-width joiner between two emoji (👩‍👩‍👧, 👩🏽‍💻, 🏳️‍🌈), a non-joiner or joiner
 * between two letters of a script whose spelling uses them (Persian, the Brahmic scripts), one variation selector after
 * a character it has a form for (emoji, keycap digit, CJK ideograph, Mongolian letter), and the tag characters of the
 * England, Scotland and Wales flags. Any other joiner, selector or tag character is shown.
 */
const EMOJI_JOINER = /(?<=\p{Extended_Pictographic}[\u{1f3fb}-\u{1f3ff}]?\ufe0f?)\u200d(?=\p{Extended_Pictographic})/u;
const JOINING_SCRIPTS = [
  'Arabic',
  'Syriac',
  'Nko',
  'Mongolian',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
].concat(['Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala']);
const SCRIPT_JOINER = new RegExp(
  JOINING_SCRIPTS.map((script) => `(?<=\\p{scx=${script}})[\u200c\u200d](?=\\p{scx=${script}})`).join('|'),
  'u'
);
const VARIANT =
  /(?<=[\p{Extended_Pictographic}#*0-9])[\ufe0e\ufe0f]|(?<=\p{Ideographic})[\ufe00-\ufe0f\u{e0100}-\u{e01ef}]|(?<=\p{scx=Mongolian})[\u180b-\u180d\u180f]/u;
/** `code` spelled in tag characters, which mirror ASCII from U+E0020. */
const inTags = (code) => [...code].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
const FLAG_TAGS = new RegExp(`\u{1f3f4}(?:${['gbeng', 'gbsct', 'gbwls'].map(inTags).join('|')})\u{e007f}`, 'u');
const KEPT = [FLAG_TAGS, EMOJI_JOINER, SCRIPT_JOINER, VARIANT].map((kept) => kept.source).join('|');
const SHOWN = new RegExp(`(${KEPT})|${HIDDEN.source}`, 'gu');

/** `text` with every hidden character shown as its code point (`⟨U+202E⟩`), but for the kept ones. */
export function visible(text) {
  return text.replace(
    SHOWN,
    (c, kept) => kept ?? `⟨U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`
  );
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(visible(String(child))));
  }
}

/** Replaces an element's content. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export function badge(text, kind = text) {
  return h('span', { class: `badge badge-${String(kind).toLowerCase()}` }, text);
}

/** `1234` → `1.23 s`, `42` → `42 ms`. */
export function duration(ms) {
  if (ms === null || ms === undefined) return '';
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

/**
 * A time as operators match it with logs and Temporal: UTC, to the millisecond, marked so (`2026-03-01 10:00:00.123
 * UTC`), never the browser's local time without a zone.
 */
export function when(iso) {
  if (!iso) return '';
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? String(iso) : `${at.toISOString().replace('T', ' ').replace('Z', '')} UTC`;
}

/** A payload as text: a string as is, anything else as indented JSON. */
export function show(value) {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** A message box for failures, with the API's error code. */
export function errorBox(err) {
  return h('div', { class: 'error', role: 'alert' }, err.code ? `${err.code}: ` : '', err.message);
}

const FIELDS = 'input, textarea, button, select';

/** Where a form field sits: its panel (and the call that panel is about), and its name or its text. */
function fieldKey(el) {
  const panel = el.closest('section[id], section[data-activity]');
  if (!panel) return null;
  const where = `${panel.id}/${panel.dataset.activity ?? ''}/${panel.dataset.call ?? ''}`;
  return `${where}/${el.tagName}/${el.getAttribute('name') ?? el.textContent}`;
}

/**
 * Where an element that is no field sits, as the same element again after a redraw: its id; else its place under the
 * nearest element with an id or a `data-key` (a timeline row: `McpPlan #2`), by its tag, its name (aria-label, href)
 * and which of those it is there. Its text is no part of it: a summary's `2 audit rows` is `3 audit rows` once a row
 * comes in.
 */
function placeKey(el) {
  if (el.id) return `#${el.id}`;
  const anchor = el.parentElement?.closest('[id], [data-key]');
  if (!anchor) return null;
  const name = (e) => e.dataset.key ?? `${e.tagName}:${e.getAttribute('aria-label') ?? e.getAttribute('href') ?? ''}`;
  const nth = [...anchor.querySelectorAll(el.tagName)].filter((e) => name(e) === name(el)).indexOf(el);
  return `${placeKey(anchor)}/${name(el)}/${nth}`;
}

/** The element of the redrawn `root` that is `key` again (fieldKey for a field, else placeKey), if any. */
function sameAgain(root, tag, key, keyOf) {
  return key ? [...root.querySelectorAll(tag)].find((el) => keyOf(el) === key) : undefined;
}

/**
 * The focus back on `focused` after `root` was redrawn: on itself when the redraw moved it (an element kept for the
 * page's life, such as an action's outcome), on the same element again (an audit row's summary, a link), or on the new
 * heading when that replaced it.
 */
function refocus(root, focused, placed) {
  if (!focused || document.activeElement === focused) return;
  if (focused.isConnected) return focused.focus();
  const again = sameAgain(root, focused.tagName.toLowerCase(), placed, placeKey);
  if (again) again.focus();
  else if (focused.tagName === 'H1') root.querySelector('h1')?.focus();
}

/**
 * What the operator typed in `root`, which audit lists were open and where the focus was; the returned function puts
 * them back after `root` was redrawn, in the fields that are the same field again (same panel, same call, same name)
 * and on the elements that are the same again (placeKey): a live turn's redraw neither closes what the operator
 * opened nor drops the focus to the page's body.
 */
export function keepFields(root) {
  const typed = new Map();
  for (const field of root.querySelectorAll('input[name], textarea[name]')) {
    const key = fieldKey(field);
    if (key && field.type !== 'password') typed.set(key, field.value);
  }
  const opened = new Map([...root.querySelectorAll('details')].map((d) => [placeKey(d), d.open]));
  opened.delete(null);
  const focused = root.contains(document.activeElement) ? document.activeElement : null;
  const focusKey = focused?.matches(FIELDS) ? fieldKey(focused) : null;
  const placed = focused && !focusKey ? placeKey(focused) : null;
  const caret = focused?.tagName === 'BUTTON' ? null : [focused?.selectionStart, focused?.selectionEnd];
  return () => {
    for (const field of root.querySelectorAll('input[name], textarea[name]')) {
      const key = fieldKey(field);
      if (key && typed.has(key)) field.value = typed.get(key);
    }
    for (const details of root.querySelectorAll('details')) {
      const key = placeKey(details);
      if (opened.has(key)) details.open = opened.get(key);
    }
    if (!focusKey) return refocus(root, focused, placed);
    const again = sameAgain(root, FIELDS, focusKey, fieldKey);
    again?.focus();
    if (again && caret && again.tagName !== 'BUTTON') again.setSelectionRange(caret[0], caret[1]);
  };
}

/**
 * The field a VALIDATION_FAILED refusal names (`details.field`: `intent`), read from the API's answer, so that the
 * console follows what the API accepts instead of copying its patterns; null for another error.
 */
export function refusedField(err) {
  if (err?.code !== 'VALIDATION_FAILED') return null;
  const field = err.details?.field;
  return typeof field === 'string' && field !== '' ? field : null;
}

/**
 * `field` marked refused for a screen reader and the eye: aria-invalid, described by `message` (shown after its form,
 * or its label), and focused, so the operator is back where the fix is typed. `fieldOk` takes the mark off again.
 */
export function fieldError(field, message) {
  fieldOk(field);
  const id = `${field.name}-error`;
  field.setAttribute('aria-invalid', 'true');
  field.setAttribute('aria-describedby', id);
  (field.form ?? field.closest('label') ?? field).after(h('p', { class: 'field-error', id }, message));
  field.focus();
}

export function fieldOk(field) {
  const id = field.getAttribute('aria-describedby');
  if (id) document.getElementById(id)?.remove();
  field.removeAttribute('aria-invalid');
  field.removeAttribute('aria-describedby');
}

/**
 * A data table in its own horizontal scroll box: a wide table scrolls there, not the whole page on a narrow screen.
 * The box is a named region the keyboard can reach, to scroll it with the arrow keys.
 */
export function scrolling(label, table) {
  return h('div', { class: 'table-scroll', role: 'region', 'aria-label': label, tabindex: '0' }, table);
}
