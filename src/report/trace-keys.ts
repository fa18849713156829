/**
 * Which run each span of a trace part belongs to, across the parts of a trace
 * that came far apart: a span's run key is its nearest ancestor (or itself)
 * that is a run counted here, else what an earlier part remembered of its
 * ancestor. Earlier parts remember span id → run key, and the ids of missing
 * ancestors (stand-in run spans, spans that never came yet) map to themselves.
 */
import { stringArrayAttr } from '../conventions/span-view.js';
import * as K from '../model/attributes.js';
import type { ReportSpan } from './report-span.js';

/** The run key an earlier part remembered for span `id`, following stand-in keys that were later found to be another run's. */
export function rememberedKey(runOf: ReadonlyMap<string, string> | undefined, id: string): string | undefined {
  let key = runOf?.get(id);
  for (let depth = 0; key !== undefined && depth < 64; depth += 1) {
    const next = runOf?.get(key);
    if (next === undefined || next === key) return key;
    key = next;
  }
  return key;
}

/**
 * True when a span's verdict is the gateway's crash verdict for a run whose
 * span never came: the gateway writes it on the topmost span that did come
 * (a step, an attempt, a tool, a call), with `run_never_ended` among its
 * missing facts, and that span's parent is the missing run span (absent, or
 * a run span that came later). A framework call judged as a run of its own
 * under a tool (a sub-agent) is keyed by its own id.
 */
export function isStandInVerdict(span: ReportSpan, parentRole: 'run' | 'other' | 'absent'): boolean {
  if (span.role === 'run' || span.view.parentSpanId === undefined || span.view.parentIsRemote) return false;
  if (parentRole === 'other') return false;
  return stringArrayAttr(span.view.attributes, K.ATTR_INCIDENT_MISSING_FACTS).includes('run_never_ended');
}

/** Resolves the run key of every span of a part, memoized: O(spans). */
export function resolveKeys(
  byId: ReadonlyMap<string, ReportSpan>,
  isKeyHere: (id: string) => boolean,
  runOf: ReadonlyMap<string, string> | undefined,
): (id: string) => string | undefined {
  const memo = new Map<string, string | null>();
  const resolve = (start: string): string | undefined => {
    const path: string[] = [];
    let id: string | undefined = start;
    let found: string | null = null;
    for (let depth = 0; id !== undefined && depth < 256; depth += 1) {
      const known = memo.get(id);
      if (known !== undefined) {
        found = known;
        break;
      }
      path.push(id);
      if (isKeyHere(id)) {
        found = id;
        break;
      }
      const span = byId.get(id);
      if (span === undefined) {
        // A span that is not here: what an earlier part knew of it, else a missing ancestor (the key a stand-in would have).
        found = rememberedKey(runOf, id) ?? id;
        break;
      }
      if (span.role === 'run') {
        found = id;
        break;
      }
      if (span.view.parentIsRemote) break;
      id = span.view.parentSpanId;
    }
    for (const p of path) memo.set(p, found);
    return found ?? undefined;
  };
  return resolve;
}
