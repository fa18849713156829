/**
 * Reads run incidents back out of OTLP/JSON (`ExportTraceServiceRequest`, one
 * per line, as `agent-incidents demo --out` writes them). Pure: text in, rows out.
 */
import * as K from '../model/attributes.js';
import { GEN_AI, OPERATION } from '../model/native-convention.js';

/** The incident attributes of one run span. */
export interface RunRow {
  readonly outcome: string;
  readonly cause?: string;
  readonly causeDetail?: string;
  readonly phase?: string;
  readonly retrySafety?: string;
  readonly provider?: string;
}

interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
}

interface OtlpKeyValue {
  key?: string;
  value?: OtlpAnyValue;
}

function scalar(value: OtlpAnyValue | undefined): string | undefined {
  if (!value) return undefined;
  if (typeof value.stringValue === 'string') return value.stringValue;
  if (value.intValue !== undefined) return String(value.intValue);
  if (typeof value.boolValue === 'boolean') return String(value.boolValue);
  if (typeof value.doubleValue === 'number') return String(value.doubleValue);
  return undefined;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
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

/**
 * Extracts one {@link RunRow} per run span (`invoke_agent` with an
 * `incident.outcome`) from OTLP/JSON lines. Blank lines are skipped; a line
 * that is not JSON throws an {@link OtlpJsonError} naming it.
 */
export function runRowsFromOtlpJsonLines(text: string): RunRow[] {
  const rows: RunRow[] = [];
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
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
    for (const resourceSpans of asArray((request as { resourceSpans: unknown }).resourceSpans)) {
      for (const scopeSpans of asArray((resourceSpans as { scopeSpans?: unknown })?.scopeSpans)) {
        for (const span of asArray((scopeSpans as { spans?: unknown })?.spans)) {
          const row = runRowOf(asArray((span as { attributes?: unknown })?.attributes) as OtlpKeyValue[]);
          if (row) rows.push(row);
        }
      }
    }
  }
  return rows;
}

function runRowOf(attributes: OtlpKeyValue[]): RunRow | undefined {
  const get = (key: string) => scalar(attributes.find((a) => a?.key === key)?.value);
  const outcome = get(K.ATTR_INCIDENT_OUTCOME);
  if (get(GEN_AI.OPERATION_NAME) !== OPERATION.RUN || outcome === undefined) return undefined;
  return {
    outcome,
    cause: get(K.ATTR_INCIDENT_CAUSE),
    causeDetail: get(K.ATTR_INCIDENT_CAUSE_DETAIL),
    phase: get(K.ATTR_INCIDENT_PHASE),
    retrySafety: get(K.ATTR_INCIDENT_RETRY_SAFETY),
    provider: get(GEN_AI.PROVIDER_NAME),
  };
}
