/**
 * The security headers of the pages the API serves to a browser: the turn console (/console) and Swagger UI
 * (/docs, /docs/static/*). One policy, so that neither page can be framed by another site (clickjacking its
 * Authorize, Execute or action buttons), sniffed into another type, or run a script from elsewhere.
 */

type Directives = Record<string, string>;

/** The console's policy: its own files only; no inline script or style, no frame around it. */
const BASE_POLICY: Directives = {
  'default-src': "'self'",
  'script-src': "'self'",
  'style-src': "'self'",
  'img-src': "'self' data:",
  'connect-src': "'self'",
  'object-src': "'none'",
  'base-uri': "'self'",
  'form-action': "'self'",
  'frame-ancestors': "'none'",
};

/**
 * The headers of a page, its policy widened only by `more` (a directive given there replaces the base one). Swagger
 * UI needs inline styles (React sets style attributes) and fonts from data: URLs; nothing else.
 */
export function pageSecurityHeaders(more: Directives = {}): Record<string, string> {
  const policy = { ...BASE_POLICY, ...more };
  return {
    'content-security-policy': Object.entries(policy)
      .map(([name, value]) => `${name} ${value}`)
      .join('; '),
    // For browsers that predate frame-ancestors.
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
}

export const CONSOLE_HEADERS = pageSecurityHeaders();

export const SWAGGER_UI_HEADERS = pageSecurityHeaders({
  'style-src': "'self' 'unsafe-inline'",
  'font-src': "'self' data:",
});
