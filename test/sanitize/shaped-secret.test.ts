/**
 * Shaped secrets (src/sanitize/shaped-secret.ts): secrets found by their
 * shape alone, with no name before them.
 */
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { findShapedSecret, gluedToMarker, isPrefixedSecret } from '../../src/sanitize/shaped-secret.js';

const BODY = 'Xk9QvT2mLp7RwZ4aBn8cYd3eFg5hJk6LmN';
const ALONE = 'Xk9QvT2mLp7RwZ4aBn8cYd3eFg5hJk6LmN1p';

describe('isPrefixedSecret', () => {
  it.each([
    ['a lower-case prefix and a random body', `tvly-${BODY}`, true],
    ['a versioned prefix', `sk-or-v1-${BODY}`, true],
    ['an upper-case prefix', `PMAK-${BODY.slice(0, 24)}`, true],
    ['a credential prefix with a 16-character body', 'dckr_pat_Xk9QvT2mLp7RwZ4a', true],
    ['a label glued to hex', 'dapi0a1b2c3d4e5f60718293a4b5c6d7e8f9', true],
    ['a credential prefix before a UUID', 'sk-lf-0b7c4a1e-1f2d-4c3b-9a8e-7d6c5b4a3f21', true],
    ['a provider id', `chatcmpl-${BODY}`, false],
    ['a labelled digest', `sha512-${BODY}`, false],
    ['a body too short for an unknown prefix', `tvly-${BODY.slice(0, 20)}`, false],
    ['a UUID under a plain prefix', 'session-0b7c4a1e-1f2d-4c3b-9a8e-7d6c5b4a3f21', false],
    ['a composite name', 'build-node-cache-Linux-x64-npm-release', false],
    ['hex glued to a hex-only label', 'abcd0a1b2c3d4e5f60718293a4b5c6d7e8f9', false],
    ['no separator', `tvly${BODY}`, false],
  ])('%s → %s', (_, run, secret) => {
    expect(isPrefixedSecret(run, 0, run.length)).toBe(secret);
  });
});

describe('findShapedSecret', () => {
  const find = (run: string) => findShapedSecret(run, 0, run.length);

  it.each([
    ['a lone random run', ALONE, [0, ALONE.length]],
    ['a prefixed secret', `tvly-${BODY}`, [0, BODY.length + 5]],
    ['a password glued to a one-letter flag', '-pS3cr3tV4lu3Qx', [2, 15]],
    ['a token segment of a path', `/bot${BODY}/sendMessage`, [1, BODY.length + 4]],
    ['a webhook path from its first segment with a digit', '/api/webhooks/123456/AbCdEf', [14, 27]],
  ])('finds %s', (_, run, range) => {
    expect(find(run)).toEqual(range);
  });

  it.each([
    ['a provider id', `chatcmpl-${BODY}`],
    ['a camel-case identifier', 'secretsManagerGetSecretValueForTheAgent'],
    ['a hex digest', 'c53dffd5a1b2e4f7c53dffd5a1b2e4f7c53dffd5'],
    ['a path of words', '/usr/local/lib/node_modules/agent-incidents'],
    ['base64 of text with slashes', Buffer.from('{"cursor":"???>>>???","page":2,"after":"x"}').toString('base64')],
    ['a short run', 'Xk9QvT2mLp'],
    ['a run longer than 512 characters', ALONE.repeat(15)],
  ])('finds nothing in %s', (_, run) => {
    expect(find(run)).toBeUndefined();
  });
});

describe('gluedToMarker', () => {
  it.each([
    ['a random piece of 12 or more', 'Xk9QvT2mLp7R', true],
    ['a random piece after words', 'SG.Xk9QvT2mLp7RwZ4a', true],
    ['a piece of 11', 'Xk9QvT2mLp7', false],
    ['a word', 'configuration', false],
  ])('%s → %s', (_, run, glued) => {
    const text = `${run}[redacted:secret]`;
    expect(gluedToMarker(text, 0, run.length)).toBe(glued);
  });
});
