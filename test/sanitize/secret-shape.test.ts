/**
 * Secret shape (src/sanitize/secret-shape.ts): the measures of a run of
 * characters, and whether they look drawn at random.
 */
import { describe, expect, it } from 'vitest';
import {
  MIN_SECRET_LENGTH,
  looksRandom,
  looksRandomAlone,
  looksRandomPiece,
  measureRun,
} from '../../src/sanitize/secret-shape.js';

const shapeOf = (run: string) => measureRun(run, 0, run.length);

describe('measureRun', () => {
  it('counts classes, turns, segments and entropy', () => {
    expect(shapeOf('aB3-')).toEqual({
      length: 4,
      upper: 1,
      lower: 1,
      digits: 1,
      others: 1,
      switchRate: 1,
      segmentLength: 1,
      entropy: 2,
      hex: false,
    });
  });

  it('takes a capital and the lower case after it for one segment', () => {
    const shape = shapeOf('WordWord');
    expect([shape.segmentLength, shape.switchRate]).toEqual([4, 1 / 7]);
  });

  it.each([
    ['deadbeef01', true],
    ['DEADBEEF01', true],
    ['deadbeef', false],
    ['DeadBeef01', false],
    ['deadbeeg01', false],
    ['dead-beef01', false],
  ])('%s is hex: %s', (run, hex) => {
    expect(shapeOf(run).hex).toBe(hex);
  });

  it('measures only the range it is given, and each call afresh', () => {
    const text = 'xxaaaabbbbxx';
    expect(measureRun(text, 2, 10).entropy).toBe(1);
    expect(measureRun(text, 2, 10).entropy).toBe(1);
    expect(measureRun(text, 2, 10).length).toBe(8);
  });

  it('has no turns or segments in a run of punctuation', () => {
    const shape = shapeOf('----');
    expect([shape.switchRate, shape.segmentLength, shape.others]).toEqual([0, 0, 4]);
  });
});

describe('looksRandom', () => {
  it.each([
    ['a base62 key', 'Xk9QvT2mLp7RwZ4aBn8c', true],
    ['a hex key', 'c53dffd5a1b2e4f7', true],
    ['base32 in one case', 'JBSWY3DPEHPK3PXP', true],
    ['random letters in both cases', 'qWeRtYuIoPaSdFgH', true],
    ['one character short', 'Xk9QvT2mLp7RwZ4', false],
    ['a camel-case identifier', 'secretsManagerGetSecretValue', false],
    ['a word repeated', 'passwordpassword', false],
    ['letters of one case', 'abcdefghijklmnopqrst', false],
    ['mostly punctuation', 'a.b.c.d.e.f.g.h.1.2', false],
    ['a repeated hex pattern', 'deadbeefdeadbeefdeadbeef0', false],
  ])('%s → %s', (_, run, random) => {
    expect(looksRandom(shapeOf(run))).toBe(random);
  });

  it('holds runs to the length it is given', () => {
    expect(MIN_SECRET_LENGTH).toBe(16);
    expect(looksRandom(shapeOf('Xk9QvT2mLp'), 10)).toBe(true);
    expect(looksRandom(shapeOf('Xk9QvT2mLp'))).toBe(false);
  });
});

describe('looksRandomPiece', () => {
  it.each([
    ['a random run', 'Xk9QvT2mLp7RwZ4aBn8c', true],
    ['a long piece of both cases and digits at high entropy', 'SruUdiVJlmcKCQJtHbWnAeXp7z', true],
    ['long camel-case words', 'MetaLlamaInstructTurboModel', false],
    ['a short word', 'token', false],
  ])('%s → %s', (_, run, random) => {
    expect(looksRandomPiece(shapeOf(run))).toBe(random);
  });
});

describe('looksRandomAlone', () => {
  it.each([
    ['a 40-character base62 key', 'Xk9QvT2mLp7RwZ4aBn8cYd3eFg5hJk6LmN1pQr0s', true],
    ['random letters from 40 characters on', 'XkQvTmLpRwZaBnceYdFghJkLmNpQrsUvWxyzAbCD', true],
    ['a 31-character key', 'Xk9QvT2mLp7RwZ4aBn8cYd3eFg5hJk6', false],
    ['a hex digest', 'c53dffd5a1b2e4f7c53dffd5a1b2e4f7c53dffd5', false],
    ['a long camel-case identifier', 'ThisIsAVeryLongIdentifierMadeOfManyWords', false],
  ])('%s → %s', (_, run, random) => {
    expect(looksRandomAlone(shapeOf(run))).toBe(random);
  });
});
