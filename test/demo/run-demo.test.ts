/**
 * runDemo (src/demo/run-demo.ts), the `agent-incidents demo` command, in
 * process, through the SDK this repository installs, into real files in a
 * temp dir: it writes one OTLP ExportTraceServiceRequest per line (the runs
 * left open by crashed agents included, finalized at shutdown), and its
 * report is the report of the file it wrote; progress is told after each
 * slice of 100 runs; a seed reproduces the fleet; with an OTLP endpoint the
 * same spans reach a real collector on 127.0.0.1, and an unreachable one is
 * reported, not thrown, the file written regardless (docs/cli.md#demo).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runDemo } from '../../src/demo/run-demo.js';
import { FLEET } from '../../src/demo/fleet.js';
import { decodeOtlpJsonSpans } from '../../src/otlp/otlp-json-spans.js';
import { ReportBuilder } from '../../src/report/report-builder.js';
import { startUpstream } from '../support/upstream.js';

const dir = mkdtempSync(join(tmpdir(), 'run-demo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const nextFile = () => join(dir, `demo-${(files += 1)}.otlp.jsonl`);

/** The lines of a file the demo wrote. */
const linesOf = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

describe('runDemo', () => {
  it('writes one OTLP/JSON request per line and reports what it wrote, the runs left open included', async () => {
    const out = nextFile();
    const result = await runDemo({ runs: 45, seed: 1, out });
    const lines = linesOf(out);
    const spans = lines.flatMap((line) => decodeOtlpJsonSpans(JSON.parse(line)));
    expect(result.spans).toBe(spans.length);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(result.traces);
    expect(spans.every((s) => s.resource['service.name'] === 'agent-incidents-demo')).toBe(true);
    expect(result.report.runs).toBe(45);
    expect(result.report.input).toEqual({ lines: lines.length, spans: spans.length, traces: result.traces });
    // The report is the file's, as `agent-incidents report` reads it.
    const builder = new ReportBuilder();
    for (const line of lines) builder.addLine(line);
    expect(builder.finish()).toEqual(result.report);
    // The crashed agents' runs, ended at shutdown, are in the file and judged.
    expect(result.report.byCause).toContainEqual(['crash_or_restart_incomplete', expect.any(Number)]);
    expect(result.sdkPackage).toMatch(/^@opentelemetry\/sdk-trace(-base)?$/);
    expect(result.otlpError).toBeUndefined();
  });

  it('plays the providers in turn', async () => {
    const out = nextFile();
    await runDemo({ runs: 10, seed: 1, out });
    const runs = linesOf(out)
      .flatMap((line) => decodeOtlpJsonSpans(JSON.parse(line)))
      .filter((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent');
    const providers = runs.map((s) => s.attributes['gen_ai.provider.name']);
    expect(new Set(providers)).toEqual(new Set(['openai', 'anthropic']));
    expect(runs.every((s) => s.attributes['gen_ai.agent.name'] === 'demo-agent')).toBe(true);
  });

  it.each([
    [201, [100, 200, 201]],
    [100, [100]],
    [7, [7]],
  ])('tells progress after each slice of 100 runs: %i runs → %j', async (runs, told) => {
    const progress: number[] = [];
    const result = await runDemo({ runs, seed: 1, out: nextFile(), onProgress: (n) => progress.push(n) });
    expect(progress).toEqual(told);
    expect(result.report.runs).toBe(runs);
  });

  it('reproduces a fleet for a seed, its lost usage included, and plays another for another seed', async () => {
    const counts = async (seed: number) => {
      const out = nextFile();
      const { report } = await runDemo({ runs: FLEET.length + 40, seed, out });
      // What the run spans say their incidents lost, summed per key (docs/attributes.md#lost-usage).
      const lost: Record<string, number> = {};
      for (const span of linesOf(out).flatMap((line) => decodeOtlpJsonSpans(JSON.parse(line))))
        for (const [key, value] of Object.entries(span.attributes))
          if (key.startsWith('incident.lost.') && typeof value === 'number') lost[key] = (lost[key] ?? 0) + value;
      return { byOutcome: report.byOutcome, byKind: report.byKind, lost };
    };
    const first = await counts(4);
    // The faults cost something, reasoning and cached input included.
    for (const key of [
      'attempts',
      'input_tokens',
      'output_tokens',
      'reasoning_tokens',
      'cached_input_tokens',
      'cost_usd',
    ])
      expect(first.lost[`incident.lost.${key}`], key).toBeGreaterThan(0);
    expect(await counts(4)).toEqual(first);
    expect(await counts(5)).not.toEqual(first);
  });

  it('sends the same spans to an OTLP endpoint', async () => {
    const collector = await startUpstream();
    try {
      const out = nextFile();
      const result = await runDemo({ runs: 30, seed: 2, out, otlpEndpoint: collector.endpoint });
      expect(result.otlpError).toBeUndefined();
      const written = linesOf(out).flatMap((line) => decodeOtlpJsonSpans(JSON.parse(line)));
      const key = (s: { traceId: string; spanId: string }) => `${s.traceId}/${s.spanId}`;
      expect(collector.received.map(key).sort()).toEqual(written.map(key).sort());
    } finally {
      await collector.close();
    }
  });

  it('reports an endpoint it cannot reach, and still writes the whole file', async () => {
    const collector = await startUpstream();
    await collector.close();
    const out = nextFile();
    const result = await runDemo({ runs: 25, seed: 1, out, otlpEndpoint: collector.endpoint });
    expect(result.otlpError).toBe('ECONNREFUSED');
    expect(result.report.runs).toBe(25);
    expect(linesOf(out).length).toBe(result.report.input.lines);
  });

  it('rejects when the file cannot be opened', async () => {
    await expect(runDemo({ runs: 5, seed: 1, out: join(dir, 'missing', 'x.jsonl') })).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});
