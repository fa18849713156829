/**
 * deploy/prometheus/alerts.quick.yaml, the demo rules of docs/quickstart.md: generated from alerts.yaml
 * by scripts/ci/quick-alerts.mjs and kept in sync with it (the same rules, labels and annotations; only
 * windows, offsets and `for:` divided by 10, and `keep_firing_for` added), and, through promtool's unit
 * tests, firing within two minutes of one demo run.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  keep_firing_for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const rulesOf = (path: string): Rule[] =>
  (parse(read(path)) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);
const source = rulesOf('deploy/prometheus/alerts.yaml');
const quick = rulesOf('deploy/prometheus/alerts.quick.yaml');

const UNITS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };
const seconds = (d: string): number =>
  [...d.matchAll(/(\d+)(ms|[smhd])/g)].reduce((t, [, n, u]) => t + Number(n) * UNITS[u!]!, 0);
const DURATION = /\[(\d+(?:ms|[smhd]))+\]|offset\s+(\d+(?:ms|[smhd]))+/g;
/** The windows and offsets of an expression, in seconds, in order. */
const windows = (expr: string): number[] => [...expr.matchAll(DURATION)].map((m) => seconds(m[0]));
/** An expression with its windows and offsets blanked. */
const shape = (expr: string): string => expr.replace(DURATION, (m) => (m.startsWith('[') ? '[W]' : 'offset W'));

const probe = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
const hasPromtool = probe.error === undefined && probe.status === 0;

describe('deploy/prometheus/alerts.quick.yaml', () => {
  it('is what scripts/ci/quick-alerts.mjs generates from alerts.yaml today', () => {
    const result = spawnSync(process.execPath, ['scripts/ci/quick-alerts.mjs', '--check'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(result.status, result.stderr).toBe(0);
  });

  it('has the rules of alerts.yaml, every window, offset and for: a tenth, and keeps each alert firing 10m', () => {
    expect(quick.map((r) => r.alert ?? r.record)).toEqual(source.map((r) => r.alert ?? r.record));
    for (const [i, rule] of source.entries()) {
      const fast = quick[i]!;
      const name = rule.alert ?? rule.record;
      expect(shape(fast.expr), name).toBe(shape(rule.expr));
      if (rule.record) expect(windows(rule.expr).length, name).toBeGreaterThan(0);
      expect(windows(fast.expr), name).toEqual(windows(rule.expr).map((s) => s / 10));
      expect(fast.labels, name).toEqual(rule.labels);
      expect(fast.annotations, name).toEqual(rule.annotations);
      expect(fast.for === undefined ? undefined : seconds(fast.for), name).toBe(
        rule.for === undefined ? undefined : seconds(rule.for) / 10,
      );
      expect(fast.keep_firing_for, name).toBe(rule.alert ? '10m' : undefined);
    }
  });

  it('is tested by alerts.quick.test.yaml for a firing alert within two minutes of one demo run', () => {
    const tests = parse(read('deploy/prometheus/alerts.quick.test.yaml')) as {
      rule_files: string[];
      tests: { input_series: { values: string }[]; alert_rule_test: { eval_time: string; exp_alerts?: unknown[] }[] }[];
    };
    expect(tests.rule_files).toEqual(['alerts.quick.yaml']);
    for (const test of tests.tests) {
      // The demo's series appear after `_xN` blank 5-second scrapes.
      const demoAt = Math.max(...test.input_series.map((s) => Number(/^_x(\d+)/.exec(s.values)?.[1] ?? 0) * 5));
      const firstFiring = Math.min(
        ...test.alert_rule_test.filter((t) => (t.exp_alerts ?? []).length > 0).map((t) => seconds(t.eval_time)),
      );
      expect(firstFiring - demoAt).toBeLessThanOrEqual(120);
    }
  });

  it.skipIf(!hasPromtool)(
    `promtool check rules and test rules pass${hasPromtool ? '' : ' (skipped: no promtool on PATH)'}`,
    () => {
      const check = spawnSync('promtool', ['check', 'rules', 'deploy/prometheus/alerts.quick.yaml'], {
        cwd: root,
        encoding: 'utf8',
      });
      expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
      const test = spawnSync('promtool', ['test', 'rules', 'deploy/prometheus/alerts.quick.test.yaml'], {
        cwd: root,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(test.status, `${test.stdout}${test.stderr}`).toBe(0);
      expect(test.stdout).toContain('SUCCESS');
    },
  );
});
