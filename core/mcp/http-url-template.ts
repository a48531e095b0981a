/**
 * Whether an argument or the request context could pick the URL's origin: a model or an API caller (a direct
 * tool_request) would then choose which host a call reaches (SSRF). The origin is what comes before the path: up to
 * the first `/` after `://`, or after a leading `{{env.…}}` base URL.
 */
export function callerPicksOrigin(urlTemplate: string): boolean {
  const url = urlTemplate.trim();
  const scheme = /^https?:\/\//i.exec(url);
  const rest = scheme ? url.slice(scheme[0].length) : url;
  const base = scheme ? '' : (/^\{\{[^}]*\}\}/.exec(rest)?.[0] ?? '');
  const afterBase = rest.slice(base.length);
  const origin = base + afterBase.slice(0, afterBase.search(/[/?#]|$/));
  return /\{\{\s*(args|ctx)\./.test(origin) || (base !== '' && !/^\{\{\s*env\./.test(base));
}
