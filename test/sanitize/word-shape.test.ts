/**
 * Word shape (src/sanitize/word-shape.ts): whether a run reads as words
 * rather than as random characters.
 */
import { describe, expect, it } from 'vitest';
import { hasWordPrefix, isComposite, isPlainWords, isWord, wordPieces } from '../../src/sanitize/word-shape.js';

const whole = (f: (text: string, start: number, end: number) => boolean | number) => (run: string) =>
  f(run, 0, run.length);

describe('isWord', () => {
  it.each([
    ['node', true],
    ['Linux', true],
    ['DeepSeek', true],
    ['XMLHttp', true],
    ['npm', true],
    ['doFilter', true],
    ['isSecret', true],
    ['HTTP', true],
    ['Http', true],
    ['LQcuXUmndOMyjv', false],
    ['FdKM', false],
    ['QAAAAAAAAAAz', false],
    ['Akrnvq', false],
    ['ab', false],
    ['cafe', false],
    ['node2', false],
    ['OneTwoThreeFour', false],
  ])('%s → %s', (run, word) => {
    expect(whole(isWord)(run)).toBe(word);
  });
});

describe('isComposite', () => {
  it.each([
    ['deepseek-ai/DeepSeek-R1-Distill-Qwen-32B', true],
    ['node-cache-Linux-x64', true],
    ['token-counting-2024-11-01', true],
    ['release-2024', true],
    ['Xk9QvT2mLp7RwZ4a', false],
    ['node', false],
    ['node_mockPG4ZsoxmjHOyUFw4idWG_cache', false],
    ['v1.2.3', false],
  ])('%s → %s', (run, composite) => {
    expect(whole(isComposite)(run)).toBe(composite);
  });
});

describe('isPlainWords', () => {
  it.each([
    ['pat_expiry_2025', true],
    ['node-cache', true],
    ['2024.11.01', true],
    ['node-Cache', false],
    ['doFilter', false],
    ['Xk9QvT2m', false],
  ])('%s → %s', (run, plain) => {
    expect(whole(isPlainWords)(run)).toBe(plain);
  });
});

describe('wordPieces', () => {
  it.each([
    ['node-cache-Linux-x64', 3],
    ['Xk9QvT2m_Lp7RwZ4a', 0],
    ['token', 1],
    ['a-b-c', 0],
  ])('%s has %i word pieces', (run, pieces) => {
    expect(whole(wordPieces)(run)).toBe(pieces);
  });
});

describe('hasWordPrefix', () => {
  it.each([
    ['msgbatch_abc', true],
    ['price_1NqZ', true],
    ['sk-proj', true],
    ['ab.cd', true],
    ['a_bc', false],
    ['verylongword_x', false],
    ['Price_1', false],
    ['price', false],
  ])('%s → %s', (run, prefix) => {
    expect(whole(hasWordPrefix)(run)).toBe(prefix);
  });
});
