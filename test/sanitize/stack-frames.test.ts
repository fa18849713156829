/**
 * Stack frames (src/sanitize/stack-frames.ts): frames keep only the last
 * segment of their paths, and Python's source lines under frames are dropped.
 */
import { describe, expect, it } from 'vitest';
import { reduceFrames } from '../../src/sanitize/stack-frames.js';

describe('reduceFrames', () => {
  it.each([
    [
      'a JS frame keeps only the file of its path',
      'Error: boom\n    at run (/home/alice/app/src/agent.js:10:5)',
      'Error: boom\n    at run (agent.js:10:5)',
    ],
    ['a file:// URL frame keeps only the file', '    at file:///Users/bob/proj/index.mjs:3:1', '    at index.mjs:3:1'],
    [
      'a Windows path keeps only the file',
      '    at run (C:\\Users\\carol\\app\\main.js:1:1)',
      '    at run (main.js:1:1)',
    ],
    [
      'a module id is not a path',
      '    at node:internal/modules/esm/module_job:123:5',
      '    at node:internal/modules/esm/module_job:123:5',
    ],
    [
      'a path marker in front of a path goes with the directories',
      '    at run ([redacted:path]/proj/a.js:1:1)',
      '    at run (a.js:1:1)',
    ],
    [
      'a Python frame keeps its file and drops its source line and carets',
      'Traceback (most recent call last):\n  File "/srv/app/agent.py", line 3, in main\n    call(secret="x")\n    ^^^^\nValueError: bad',
      'Traceback (most recent call last):\n  File "agent.py", line 3, in main\nValueError: bad',
    ],
    [
      'an ExceptionGroup frame is reduced too',
      '  | Traceback (most recent call last):\n  |   File "/srv/app/tool.py", line 9, in run\n  |     do(x)\n  | KeyError: 1',
      '  | Traceback (most recent call last):\n  |   File "tool.py", line 9, in run\n  | KeyError: 1',
    ],
    ['lines that are not frames stay as they are', 'see /etc/passwd for details', 'see /etc/passwd for details'],
  ])('%s', (_, trace, reduced) => {
    expect(reduceFrames(trace)).toBe(reduced);
  });

  it('keeps a line after a Python frame that is not indented deeper', () => {
    expect(reduceFrames('  File "/a/b.py", line 1, in f\n  after\n    deeper')).toBe(
      '  File "b.py", line 1, in f\n  after\n    deeper',
    );
  });

  it('keeps a blank line under a Python frame', () => {
    expect(reduceFrames('  File "/a/b.py", line 1, in f\n\nx')).toBe('  File "b.py", line 1, in f\n\nx');
  });
});
