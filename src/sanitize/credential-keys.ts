/**
 * Attribute keys that hold credentials by their name, whatever their value:
 * HTTP headers recorded as attributes (`http.request.header.<name>`,
 * `http.response.header.<name>`, the AI SDK's `ai.request.headers.<name>`)
 * whose header carries authentication (Authorization, cookies, API keys,
 * tokens, or any name that ends in a credential word: `x-functions-key`,
 * `ocp-apim-subscription-key`), and any other key whose last word is a
 * credential word (`db.password`, `dbPassword`, `app.client_secret`,
 * `config.stripe_webhook_secret`). Removed before export.
 */
import { credentialName } from './credential-words.js';

/** Prefixes under which a header is recorded as an attribute, the header name following. */
export const HEADER_KEY_PREFIXES: readonly string[] = [
  'http.request.header.',
  'http.response.header.',
  'ai.request.headers.',
  'ai.response.headers.',
];

/** Headers that carry authentication whatever their last word: cookies and sessions, `Authorization` in any position. */
const CREDENTIAL_HEADER = /authorization|cookie|session|credential/i;

/**
 * True when `key` records a header that carries authentication: a cookie,
 * a session, an `Authorization`, or a header name that ends in a credential
 * word (`x-api-key`, `x-functions-key`, `ocp-apim-subscription-key`,
 * `x-amz-security-token`, `x-hub-signature-256`); a bare `…-key` counts here.
 */
export function isCredentialKey(key: string): boolean {
  for (const prefix of HEADER_KEY_PREFIXES) {
    if (key.startsWith(prefix)) {
      const header = key.slice(prefix.length);
      return CREDENTIAL_HEADER.test(header) || credentialName(header) !== 'none';
    }
  }
  return false;
}

/**
 * True when a key that records no header names a credential
 * (`db.password`, `dbPassword`, `app.client_secret`): its values are judged
 * whole (docs/sanitization.md, "The catch-all").
 */
export function isCredentialName(key: string): boolean {
  return credentialName(key) === 'strong';
}
