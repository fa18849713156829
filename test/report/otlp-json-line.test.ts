/**
 * spansOfLine's promises (src/report/otlp-json-line.ts): one OTLP/JSON
 * export request per line, a blank line is none, and a line that is not one
 * is an OtlpJsonError naming the line.
 */
import { describe, expect, it } from 'vitest';
import { OtlpJsonError, spansOfLine } from '../../src/report/otlp-json-line.js';

const REQUEST = {
  resourceSpans: [
    {
      resource: { attributes: [] },
      scopeSpans: [
        {
          spans: [
            {
              traceId: '0af7651916cd43dd8448eb211c80319c',
              spanId: 'b7ad6b7169203331',
              name: 'invoke_agent',
              startTimeUnixNano: '1',
              endTimeUnixNano: '2',
            },
          ],
        },
      ],
    },
  ],
};

describe('spansOfLine', () => {
  it('decodes the spans of a request', () => {
    expect(spansOfLine(`  ${JSON.stringify(REQUEST)}  `, 1).map((s) => [s.traceId, s.spanId, s.name])).toEqual([
      ['0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331', 'invoke_agent'],
    ]);
  });

  it('reads a blank line as no spans', () => {
    expect(spansOfLine('   ', 4)).toEqual([]);
  });

  it.each([
    ['not JSON', '{', 'line 3: not valid JSON (expected one OTLP ExportTraceServiceRequest per line)'],
    ['JSON without resourceSpans', '{"spans":[]}', 'line 3: not an OTLP ExportTraceServiceRequest (no resourceSpans)'],
    ['JSON null', 'null', 'line 3: not an OTLP ExportTraceServiceRequest (no resourceSpans)'],
  ])('rejects %s, naming the line', (_case, line, message) => {
    let caught: unknown;
    try {
      spansOfLine(line, 3);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(OtlpJsonError);
    expect([(caught as OtlpJsonError).message, (caught as OtlpJsonError).line, (caught as Error).name]).toEqual([
      message,
      3,
      'OtlpJsonError',
    ]);
  });
});
