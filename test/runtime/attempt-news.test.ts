/**
 * Which of an attempt's events are news (docs/attributes.md#phases): once-only
 * events are written once, and tool events that leave what a reader concludes
 * as it was are not written, so parallel tool calls do not spend the span's
 * event limit.
 */
import { describe, expect, it } from 'vitest';
import { AttemptNews } from '../../src/runtime/attempt-news.js';

describe('attempt news', () => {
  it('a once-only event is news the first time only, per key', () => {
    const news = new AttemptNews();
    expect(news.firstOf('text')).toBe(true);
    expect(news.firstOf('text')).toBe(false);
    expect(news.firstOf('pending:bash')).toBe(true);
    expect(news.firstOf('pending:read')).toBe(true);
  });

  it.each([
    { promise: 'is news before any tool input', steps: [], expected: true },
    { promise: 'is not news while another call’s input streams', steps: ['input'], expected: false },
    { promise: 'is not news right after a complete call', steps: ['input', 'call'], expected: false },
    { promise: 'is news again after other output', steps: ['input', 'once'], expected: true },
    { promise: 'is news again after tool activity of the run', steps: ['input', 'tool'], expected: true },
  ] as const)('a completed tool input $promise', ({ steps, expected }) => {
    const news = new AttemptNews();
    for (const step of steps) {
      if (step === 'input') news.toolInputSeen();
      if (step === 'call') news.callSeen('unsafe/false');
      if (step === 'once') news.firstOf('text');
      if (step === 'tool') news.toolActivity();
    }
    expect(news.isToolInputCompletedNews()).toBe(expected);
  });

  it.each([
    { promise: 'the first complete call is news', steps: [], kind: 'unsafe/false', expected: true },
    { promise: 'a call of the kind just seen is not', steps: ['unsafe/false'], kind: 'unsafe/false', expected: false },
    { promise: 'a call of another kind is', steps: ['unsafe/false'], kind: 'read_only/false', expected: true },
    {
      promise: 'a call of a seen kind after tool input is',
      steps: ['unsafe/false', 'input'],
      kind: 'unsafe/false',
      expected: true,
    },
  ])('$promise', ({ steps, kind, expected }) => {
    const news = new AttemptNews();
    for (const step of steps) {
      if (step === 'input') news.toolInputSeen();
      else news.callSeen(step);
    }
    expect(news.isCallNews(kind)).toBe(expected);
  });
});
