/**
 * reportSpanOf's promise (src/report/report-span.ts): a decoded span as
 * `report` reads it: its view, its service when the resource names one as a
 * string, its role by the conventions, and whether it carries a verdict.
 */
import { describe, expect, it } from 'vitest';
import { reportSpanOf } from '../../src/report/report-span.js';
import { decodedSpan } from '../support/decoded-span.js';

describe('reportSpanOf', () => {
  it.each([
    [
      'a judged run span of a named service',
      {
        attributes: { 'gen_ai.operation.name': 'invoke_agent', 'incident.outcome': 'failed' },
        resource: { 'service.name': 'agent' },
      },
      { serviceName: 'agent', role: 'run', judged: true },
    ],
    [
      'an unjudged tool span',
      { attributes: { 'gen_ai.operation.name': 'execute_tool' } },
      { serviceName: 'unit', role: 'tool', judged: false },
    ],
    [
      'a span of no convention, its service not a string, a verdict not a string',
      { attributes: { 'incident.outcome': 1 }, resource: { 'service.name': 7 } },
      { serviceName: undefined, role: undefined, judged: false },
    ],
  ])('%s', (_case, fields, expected) => {
    const span = reportSpanOf(decodedSpan('trace', 'span', fields));
    expect({ serviceName: span.serviceName, role: span.role, judged: span.judged }).toEqual(expected);
    expect([span.traceId, span.view.spanId, span.view.startMillis]).toEqual(['trace', 'span', 1_700_000_000_000]);
  });
});
