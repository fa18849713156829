/**
 * JWT scanner (src/sanitize/jwt-scanner.ts): finds JSON Web Tokens in linear
 * time and replaces each by what the caller makes of it.
 */
import { describe, expect, it } from 'vitest';
import { replaceJwts } from '../../src/sanitize/jwt-scanner.js';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const redact = (token: string) => `[jwt:${token.length}]`;

describe('replaceJwts', () => {
  it.each([
    ['a bare token', JWT, `[jwt:${JWT.length}]`],
    ['a bearer header', `Authorization: Bearer ${JWT}`, `Authorization: Bearer [jwt:${JWT.length}]`],
    ['two tokens', `${JWT} and ${JWT}.`, `[jwt:${JWT.length}] and [jwt:${JWT.length}].`],
    ['a token after a dash', `x-${JWT}`, `x-[jwt:${JWT.length}]`],
    ['a token after failed starts', `eyJ-x eyJ.y ${JWT}`, `eyJ-x eyJ.y [jwt:${JWT.length}]`],
  ])('replaces %s', (_, text, replaced) => {
    expect(replaceJwts(text, redact)).toBe(replaced);
  });

  it.each([
    ['no token', 'plain text with no token'],
    ['eyJ after a word character', `aeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmN`],
    ['a first part shorter than 8', 'eyJhbGci.eyJzdWIiOiIxMjM0.dozjgNryP4J3'],
    ['a last part shorter than 8', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0.dozjgNr'],
    ['two parts only', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0'],
  ])('leaves text with %s as it is', (_, text) => {
    expect(replaceJwts(text, redact)).toBe(text);
  });

  it('hands the whole token, and only it, to redact', () => {
    const seen: string[] = [];
    replaceJwts(`"${JWT}", more`, (token) => {
      seen.push(token);
      return 'X';
    });
    expect(seen).toEqual([JWT]);
  });

  it('counts eyJ inside a run of base64url characters as part of the token', () => {
    expect(replaceJwts(`eyJ-eyJ-${JWT}`, redact)).toBe(`[jwt:${JWT.length + 8}]`);
  });

  it('returns the very same string when nothing is replaced', () => {
    const text = `eyJ-${'eyJ-'.repeat(100)}`;
    expect(replaceJwts(text, redact)).toBe(text);
  });
});
