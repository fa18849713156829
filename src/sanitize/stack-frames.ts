/**
 * How a stack trace is reduced once the rules have scrubbed it: frames keep
 * only the last segment of their paths (a directory names a user, a host, a
 * layout), and the source lines Python prints under its frames (code, maybe
 * literals) are dropped. JS/Java and Python frames, also inside a Python
 * ExceptionGroup.
 */

// JS/Java frames (`at fn (/dir/file.js:1:2)`), Python frames (`File "/dir/x.py", line 3, in fn`), also
// inside a Python ExceptionGroup, whose nested tracebacks prefix every line with `|`.
const JS_FRAME = /^[\s|]*at\s/;
const PY_FRAME = /^[\s|]*File "/;
// Any absolute path (optionally a file:// URL): keep only its last segment. The
// rules run first, so a home directory may already be a marker in front of it.
// A path starts where a word does not: `node:internal/modules/esm/module_job` is a module id, not a path.
const PATH_DIRECTORIES =
  /(?<![A-Za-z0-9_.~-])(?:\[redacted:path(?::[0-9a-f]+)?\](?=[\\/]))?(?:file:\/\/)?(?:\/|\\|[A-Za-z]:\\)(?:[^\s()"':\\/]+[\\/])+/g;

/** Column of a line's text after its indentation and ExceptionGroup `|` bars. */
function textColumn(line: string): number {
  let at = 0;
  while (at < line.length && (line.charCodeAt(at) === 32 || line.charCodeAt(at) === 9 || line.charCodeAt(at) === 124))
    at += 1;
  return at;
}

/**
 * The frames of a stack trace with their directories stripped (only a path's
 * last segment is kept) and the Python source lines under frames dropped;
 * other lines as they are.
 */
export function reduceFrames(trace: string): string {
  const kept: string[] = [];
  // The column of the last Python frame's `File`: lines indented deeper under it are its source.
  let pythonFrameColumn = -1;
  for (const line of trace.split('\n')) {
    if (JS_FRAME.test(line) || PY_FRAME.test(line)) {
      kept.push(line.replace(PATH_DIRECTORIES, ''));
      pythonFrameColumn = PY_FRAME.test(line) ? textColumn(line) : -1;
    } else if (pythonFrameColumn >= 0 && textColumn(line) > pythonFrameColumn && textColumn(line) < line.length) {
      // The source line Python prints under a frame (and 3.11's `^^^` marks under it): code, maybe literals. Dropped.
    } else {
      kept.push(line);
      pythonFrameColumn = -1;
    }
  }
  return kept.join('\n');
}
