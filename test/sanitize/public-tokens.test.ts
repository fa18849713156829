/**
 * Public tokens (src/sanitize/public-tokens.ts): random-looking runs that are
 * public on purpose: provider ids, labelled digests, SSH public keys, data
 * URL payloads and public JWK members.
 */
import { describe, expect, it } from 'vitest';
import { excludedByContext, hasPublicLead, isPublicJwkMember } from '../../src/sanitize/public-tokens.js';

describe('hasPublicLead', () => {
  it.each([
    ['chatcmpl-9aZxQ3kLmN0pR5sT', true],
    ['resp_68a1b2c3d4e5f6', true],
    ['toolu_01AbCdEf', true],
    ['sha512-AbCdEf0123', true],
    ['SHA256.abc', true],
    ['Chatcmpl-abc', true],
    ['sk-proj-abc', false],
    ['ghp_abc', false],
    ['chatcmpl', false],
    ['chatcmpl:abc', false],
    ['-abc', false],
    ['verylongprefix_abc', false],
  ])('%s → %s', (run, lead) => {
    expect(hasPublicLead(run, 0, run.length)).toBe(lead);
  });

  it('stops at the end of the run it is given', () => {
    const text = 'resp_abc';
    expect(hasPublicLead(text, 0, 4)).toBe(false);
  });
});

describe('excludedByContext', () => {
  /** Runs `text` at `run`, the run before it being `previous` (both substrings located in text). */
  function judge(text: string, run: string, previous?: string): boolean {
    const start = text.lastIndexOf(run);
    if (previous === undefined) return excludedByContext(text, start, -1, -1);
    const previousStart = text.indexOf(previous);
    return excludedByContext(text, start, previousStart, previousStart + previous.length);
  }

  it.each([
    ['a data URL payload', 'data:image/png;base64,iVBORw0KGgo', 'iVBORw0KGgo', undefined, true],
    ['an SSH public key', 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5', 'AAAAC3NzaC1lZDI1NTE5', 'ssh-ed25519', true],
    ['an ECDSA SSH key', 'ecdsa-sha2-nistp256 AAAAE2VjZHNh', 'AAAAE2VjZHNh', 'ecdsa-sha2-nistp256', true],
    [
      'a labelled fingerprint',
      'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
      'nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
      'SHA256',
      true,
    ],
    ['a label followed by a space', 'sha256 Zk9vQmFy', 'Zk9vQmFy', 'sha256', false],
    ['a run far from the label', 'ssh-rsa   AAAAB3Nza', 'AAAAB3Nza', 'ssh-rsa', false],
    ['an unrelated previous run', 'token AAAAB3Nza', 'AAAAB3Nza', 'token', false],
    ['no previous run', 'plain AAAAB3Nza', 'AAAAB3Nza', undefined, false],
  ])('%s → %s', (_, text, run, previous, excluded) => {
    expect(judge(text, run, previous)).toBe(excluded);
  });
});

describe('isPublicJwkMember', () => {
  it.each([
    ['{"n": "', true],
    ['{"e":"', true],
    ["{'x': '", true],
    ['{"x5c": ["', true],
    ['{\\"y\\": \\"', true],
    ['{"d": "', false],
    ['{"k": "', false],
    ['{"kid": "', false],
  ])('a run after %s → %s', (lead, isPublic) => {
    const text = `${lead}AbCdEf0123`;
    expect(isPublicJwkMember(text, lead.length)).toBe(isPublic);
  });
});
