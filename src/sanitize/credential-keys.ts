/**
 * Attribute keys that hold credentials by their name, whatever their value:
 * HTTP headers recorded as attributes (`http.request.header.<name>`,
 * `http.response.header.<name>`, the AI SDK's `ai.request.headers.<name>`)
 * whose header carries authentication (Authorization, cookies, API keys,
 * tokens). Removed before export.
 */

/** Prefixes under which a header is recorded as an attribute, the header name following. */
export const HEADER_KEY_PREFIXES: readonly string[] = ['http.request.header.', 'http.response.header.', 'ai.request.headers.', 'ai.response.headers.'];

/** A header name that carries authentication: matched anywhere in the name, any case. */
const CREDENTIAL_HEADER = /authorization|cookie|api[-_]?key|token|secret|password|passwd|session|signature|credential|auth/i;

/** True when `key` records a header that carries authentication. */
export function isCredentialKey(key: string): boolean {
  for (const prefix of HEADER_KEY_PREFIXES) {
    if (key.startsWith(prefix)) return CREDENTIAL_HEADER.test(key.slice(prefix.length));
  }
  return false;
}
