/**
 * Reads run incidents back out of OTLP/JSON (`ExportTraceServiceRequest`, one
 * per line, as `agent-incidents demo --out` writes them). A run whose span
 * carries a verdict (`incident.outcome`, written by the processor or the
 * gateway) keeps it; the runs of traces exported without either are folded
 * here with the fold core, as the gateway would fold them. Pure: text in,
 * rows out.
 */
import { recognise } from '../conventions/index.js';
import type { Policy } from '../derive/policy.js';
import { foldTrace } from '../fold/fold-trace.js';
import * as K from '../model/attributes.js';
import type { Incident } from '../model/incident.js';
import { GEN_AI } from '../model/native-convention.js';
import type { DecodedSpan } from '../otlp/otlp-json-spans.js';
import { decodeOtlpJsonSpans, spanViewOfDecoded } from '../otlp/otlp-json-spans.js';

/** The incident of one run. */
export interface RunRow {
  readonly outcome: string;
  readonly cause?: string;
  readonly causeDetail?: string;
  readonly phase?: string;
  readonly retrySafety?: string;
  readonly provider?: string;
  /** The trace the run is in (lower-case hex). */
  readonly traceId?: string;
  /** The span that carries the verdict: the run span, or the topmost span of a run whose span never came. */
  readonly spanId?: string;
  /** `file`: the verdict was in the file; `folded`: the run had none and was folded here. */
  readonly source: 'file' | 'folded';
}

/** An error in an input line, with its 1-based line number. */
export class OtlpJsonError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'OtlpJsonError';
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : value === undefined ? undefined : String(value);
}

/** The row of a span that carries a verdict. */
function rowOfJudged(span: DecodedSpan): RunRow {
  const get = (key: string) => text(span.attributes[key]);
  return {
    outcome: get(K.ATTR_INCIDENT_OUTCOME) as string,
    cause: get(K.ATTR_INCIDENT_CAUSE),
    causeDetail: get(K.ATTR_INCIDENT_CAUSE_DETAIL),
    phase: get(K.ATTR_INCIDENT_PHASE),
    retrySafety: get(K.ATTR_INCIDENT_RETRY_SAFETY),
    provider: get(GEN_AI.PROVIDER_NAME),
    traceId: span.traceId,
    spanId: span.spanId,
    source: 'file',
  };
}

function rowOfFolded(incident: Incident, carrier: DecodedSpan): RunRow {
  return {
    outcome: incident.outcome,
    cause: incident.cause,
    causeDetail: incident.causeDetail,
    phase: incident.phase,
    retrySafety: incident.retrySafety,
    provider: text(carrier.attributes[GEN_AI.PROVIDER_NAME]),
    traceId: carrier.traceId,
    spanId: carrier.spanId,
    source: 'folded',
  };
}

/** Every span of OTLP/JSON lines; a line that is not such a request throws an {@link OtlpJsonError} naming it. */
function spansOfLines(input: string): DecodedSpan[] {
  const spans: DecodedSpan[] = [];
  for (const [index, raw] of input.split('\n').entries()) {
    const line = raw.trim();
    if (line === '') continue;
    let request: unknown;
    try {
      request = JSON.parse(line);
    } catch {
      throw new OtlpJsonError(index + 1, 'not valid JSON (expected one OTLP ExportTraceServiceRequest per line)');
    }
    if (request === null || typeof request !== 'object' || !('resourceSpans' in request)) {
      throw new OtlpJsonError(index + 1, 'not an OTLP ExportTraceServiceRequest (no resourceSpans)');
    }
    for (const span of decodeOtlpJsonSpans(request)) spans.push(span);
  }
  return spans;
}

/**
 * One {@link RunRow} per run in OTLP/JSON lines (blank lines skipped): the
 * verdict a span carries (`incident.outcome`), and for runs without one the
 * verdict of the fold core over their trace (`source: 'folded'`). The spans
 * of a trace may be spread over any lines.
 */
export function runRowsFromOtlpJsonLines(input: string, options: { readonly policy?: Policy } = {}): RunRow[] {
  const byTrace = new Map<string, DecodedSpan[]>();
  for (const span of spansOfLines(input)) {
    const list = byTrace.get(span.traceId);
    if (list) list.push(span);
    else byTrace.set(span.traceId, [span]);
  }
  const rows: RunRow[] = [];
  for (const spans of byTrace.values()) {
    const judged = spans.filter((s) => typeof s.attributes[K.ATTR_INCIDENT_OUTCOME] === 'string');
    for (const span of judged) rows.push(rowOfJudged(span));
    // A trace whose run spans all carry verdicts (a processor or a gateway judged it) needs no fold.
    const unjudgedRun = spans.some((s) => typeof s.attributes[K.ATTR_INCIDENT_OUTCOME] !== 'string' && recognise(s)?.role === 'run');
    if (judged.length > 0 && !unjudgedRun) continue;
    const fold = foldTrace(spans.map(spanViewOfDecoded), { policy: options.policy });
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    for (const [spanId, incident] of fold.runs) {
      const carrier = byId.get(spanId);
      if (carrier && typeof carrier.attributes[K.ATTR_INCIDENT_OUTCOME] !== 'string') rows.push(rowOfFolded(incident, carrier));
    }
  }
  return rows;
}
