/**
 * Stack traces keep their frames and lose their directories and source
 * lines, whatever runtime printed them: Node's own module ids are no paths,
 * and a Python ExceptionGroup's nested tracebacks (every line behind `|`)
 * are frames like any other.
 */
import { describe, expect, it } from 'vitest';
import { createScrubber } from '../../src/sanitize/scrubber.js';

const scrubber = createScrubber({ maxStackTraceLength: 100_000 });

const EXCEPTION_GROUP = [
  '  + Exception Group Traceback (most recent call last):',
  '  |   File "/home/alice/agent/runner.py", line 112, in run',
  '  |     async with asyncio.TaskGroup() as tg:',
  '  |   File "/usr/local/lib/python3.12/asyncio/taskgroups.py", line 145, in __aexit__',
  '  |     raise me from None',
  '  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)',
  '  +-+---------------- 1 ----------------',
  '    | Traceback (most recent call last):',
  '    |   File "/srv/agent/tools/fetch.py", line 31, in fetch',
  '    |     resp = client.get(url, headers={"Authorization": "Bearer literal-from-code"})',
  '    |            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^',
  '    | httpx.ConnectError: [Errno 111] Connection refused',
  '    +------------------------------------',
].join('\n');

describe('stack traces', () => {
  it.each([
    [
      'keeps a Node-internal module id whole',
      'Error: boom\n    at ModuleJob.run (node:internal/modules/esm/module_job:325:25)\n    at async onImport.tracePromise.__proto__ (node:internal/modules/esm/loader:547:26)',
      'Error: boom\n    at ModuleJob.run (node:internal/modules/esm/module_job:325:25)\n    at async onImport.tracePromise.__proto__ (node:internal/modules/esm/loader:547:26)',
    ],
    [
      'strips the directories of an application frame next to a Node-internal one',
      'TypeError: terminated\n    at Fetch.onAborted (/app/node_modules/undici/lib/web/fetch/index.js:2031:49)\n    at process.processTicksAndRejections (node:internal/process/task_queues:105:5)',
      'TypeError: terminated\n    at Fetch.onAborted (index.js:2031:49)\n    at process.processTicksAndRejections (node:internal/process/task_queues:105:5)',
    ],
    [
      'reduces the frames of a Python ExceptionGroup and drops their source lines and carets',
      EXCEPTION_GROUP,
      [
        '  + Exception Group Traceback (most recent call last):',
        '  |   File "runner.py", line 112, in run',
        '  |   File "taskgroups.py", line 145, in __aexit__',
        '  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)',
        '  +-+---------------- 1 ----------------',
        '    | Traceback (most recent call last):',
        '    |   File "fetch.py", line 31, in fetch',
        '    | httpx.ConnectError: [Errno 111] Connection refused',
        '    +------------------------------------',
      ].join('\n'),
    ],
    [
      'drops a plain Python frame source line and keeps the message after it',
      'Traceback (most recent call last):\n  File "/app/agent/llm.py", line 88, in complete\n    resp = await client.messages.create(api_key="literal")\nanthropic.AuthenticationError: 401',
      'Traceback (most recent call last):\n  File "llm.py", line 88, in complete\nanthropic.AuthenticationError: 401',
    ],
  ])('%s', (_name, trace, expected) => {
    expect(scrubber.scrubStackTrace(trace)).toBe(expected);
  });
});
