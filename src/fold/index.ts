/**
 * The run-folding core: span views in, facts and verdicts out. Every edge
 * (processor, recorder, gateway, report) drives it; it imports no edge.
 */
export { RunFolder } from './run-folder.js';
export type { Folded, RunFolderOptions, SpanStart } from './run-folder.js';
export type { LiveSpan } from './open-run-state.js';
export { foldTrace } from './fold-trace.js';
export type { TraceFold, TraceFoldOptions } from './fold-trace.js';
