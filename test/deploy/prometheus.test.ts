/**
 * The Prometheus rules, their unit tests, the scrape config and the Grafana dashboard under deploy/.
 * promtool runs them when it is on PATH (CI installs it: `apt-get install prometheus`); the static
 * checks run everywhere: the dashboard and the rules only use the metric names of the contract and
 * filter on label values of the closed lists in src/model/enums.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CAUSES, OUTCOMES, PHASES, RETRY_SAFETIES } from '../../src/model/enums.js';
import { DROP_REASONS, REFUSAL_REASONS } from '../../src/gateway/gateway-metrics.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

const probe = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
const hasPromtool = probe.error === undefined && probe.status === 0;
const SKIP_REASON = 'skipped: promtool is not on PATH (install it with `apt-get install prometheus`)';
const promtoolTitle = (title: string): string => (hasPromtool ? title : `${title} (${SKIP_REASON})`);

/** Runs promtool in the repository root; stdout and stderr together, for the failure message. */
function promtool(args: string[]): { status: number | null; output: string } {
  const result = spawnSync('promtool', args, { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return {
    status: result.status,
    output: `${result.stdout}${result.stderr}${result.error ? String(result.error) : ''}`,
  };
}

/** The metric names of the contract: spanmetrics and lost usage over run spans, and the gateway's own metrics. */
const CONTRACT_METRICS = new Set([
  'agent_incidents_calls_total',
  'agent_incidents_spans_tokens_lost_total',
  'agent_incidents_spans_cost_lost_USD_total',
  'agent_incidents_gateway_runs_total',
  'agent_incidents_gateway_spans_refused_total',
  'agent_incidents_gateway_requests_refused_total',
  'agent_incidents_gateway_spans_dropped_total',
  'agent_incidents_gateway_spans_held',
  'agent_incidents_gateway_forward_backlog_spans',
  'agent_incidents_gateway_runs_judged_early_total',
  'agent_incidents_gateway_verdicts_revised_total',
]);

/** Label values a query may filter on, per label: the closed lists. */
const CLOSED_VALUES: Record<string, readonly string[]> = {
  incident_outcome: OUTCOMES,
  incident_cause: CAUSES,
  incident_phase: PHASES,
  incident_retry_safety: RETRY_SAFETIES,
  outcome: OUTCOMES,
  cause: CAUSES,
  reason: [...REFUSAL_REASONS, ...DROP_REASONS],
  gen_ai_token_type: ['input', 'output'],
};

const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
]);

/** Metric names an expression selects (identifiers that are not functions, keywords, labels or durations). */
function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\boffset\s+\S+/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ');
  const names: string[] = [];
  for (const match of stripped.matchAll(/(?<![\w.:$])([A-Za-z_:][\w:]*)\b(?!\s*\()/g)) {
    const name = match[1] as string;
    if (!KEYWORDS.has(name)) names.push(name);
  }
  return names;
}

/** Label matchers of an expression: label, operator and value. */
function matchers(expr: string): { label: string; op: string; value: string }[] {
  const found: { label: string; op: string; value: string }[] = [];
  for (const selector of expr.matchAll(/\{([^}]*)\}/g)) {
    for (const m of (selector[1] as string).matchAll(/(\w+)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)) {
      found.push({ label: m[1] as string, op: m[2] as string, value: m[3] as string });
    }
  }
  return found;
}

/** Label values the matchers of `expr` name, that are not in the closed list of their label. */
function valuesOutsideClosedLists(expr: string): string[] {
  const wrong: string[] = [];
  for (const { label, op, value } of matchers(expr)) {
    const allowed = CLOSED_VALUES[label];
    if (!allowed) continue;
    const values = op === '=~' || op === '!~' ? value.split('|') : [value];
    for (const v of values) if (!allowed.includes(v)) wrong.push(`${label}${op}"${v}"`);
  }
  return wrong;
}

interface Panel {
  type: string;
  title?: string;
  description?: string;
  targets?: { expr?: string; format?: string }[];
  fieldConfig?: { defaults?: { links?: { title: string; url: string }[] } };
  panels?: Panel[];
}
interface Dashboard {
  schemaVersion: number;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: unknown; definition?: string }[] };
}

const dashboardText = read('deploy/grafana/agent-incidents.json');
const dashboard = JSON.parse(dashboardText) as Dashboard;
const allPanels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
/** PromQL of every panel query. */
const dashboardExprs = allPanels.flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? ''));
/** Grafana `label_values(metric, label)` variable queries: [metric, label]. */
const variableQueries = dashboard.templating.list.flatMap((v) => {
  const m = /^label_values\((\w+),\s*(\w+)\)$/.exec(v.definition ?? '');
  return m ? [[m[1] as string, m[2] as string] as const] : [];
});

interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const alertsText = read('deploy/prometheus/alerts.yaml');
const rulesFile = parse(alertsText) as { groups: { name: string; rules: Rule[] }[] };
const rules = rulesFile.groups.flatMap((g) => g.rules);
const alerts = rules.filter((r) => r.alert !== undefined);
const REQUIRED_ALERTS = [
  'AgentProviderDisconnectSurge',
  'AgentWatchdogTimeouts',
  'AgentUnsafeInterruptionRatio',
  'AgentUnknownCauses',
  'AgentTokensLostToDisconnects',
  'AgentIncidentsGatewayRefusing',
  'AgentIncidentsGatewayDropping',
  'AgentIncidentsGatewayShedding',
];

describe('promtool', () => {
  it.skipIf(!hasPromtool)(promtoolTitle('promtool check rules deploy/prometheus/alerts.yaml'), () => {
    const { status, output } = promtool(['check', 'rules', 'deploy/prometheus/alerts.yaml']);
    expect(status, output).toBe(0);
  });

  it.skipIf(!hasPromtool)(promtoolTitle('promtool test rules deploy/prometheus/alerts.test.yaml'), () => {
    const { status, output } = promtool(['test', 'rules', 'deploy/prometheus/alerts.test.yaml']);
    expect(status, output).toBe(0);
    expect(output).toContain('SUCCESS');
  });

  it.skipIf(!hasPromtool)(promtoolTitle('promtool check config deploy/prometheus/prometheus.yaml'), () => {
    const { status, output } = promtool(['check', 'config', 'deploy/prometheus/prometheus.yaml']);
    expect(status, output).toBe(0);
  });

  it.skipIf(!hasPromtool)(promtoolTitle('every dashboard query is valid PromQL'), () => {
    // Grafana variables replaced by plausible values, then checked as recording rules.
    const exprs = dashboardExprs.map((e) =>
      e.replace(/\$__range|\$__rate_interval|\$__interval/g, '5m').replace(/\$\{?service\}?/g, '.*'),
    );
    const dir = mkdtempSync(join(tmpdir(), 'dashboard-promql-'));
    try {
      const file = join(dir, 'dashboard-exprs.yaml');
      const body = exprs
        .map((e, i) => `      - record: dashboard:expr${i}\n        expr: ${JSON.stringify(e)}`)
        .join('\n');
      writeFileSync(file, `groups:\n  - name: dashboard\n    rules:\n${body}\n`);
      const { status, output } = promtool(['check', 'rules', file]);
      expect(status, output).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('alert rules', () => {
  it('are one group agent-incidents with every required alert', () => {
    expect(rulesFile.groups.map((g) => g.name)).toEqual(['agent-incidents']);
    expect(alerts.map((a) => a.alert)).toEqual(expect.arrayContaining(REQUIRED_ALERTS));
  });

  it('have a severity, a summary and a description, and a comment giving the threshold', () => {
    const lines = alertsText.split('\n');
    for (const alert of alerts) {
      expect(alert.labels?.severity, alert.alert).toMatch(/^(critical|warning|info)$/);
      expect(alert.annotations?.summary, alert.alert).toBeTruthy();
      expect(alert.annotations?.description, alert.alert).toBeTruthy();
      // The comment block right above `- alert: <name>` says why the threshold.
      const at = lines.findIndex((l) => l.trim() === `- alert: ${alert.alert}`);
      let start = at;
      while (start > 0 && (lines[start - 1] as string).trim().startsWith('#')) start--;
      expect(lines.slice(start, at).join('\n'), alert.alert).toMatch(/Threshold/);
    }
  });

  it('never select on status_code (a user cancel is not an error)', () => {
    for (const rule of rules) expect(rule.expr, rule.alert ?? rule.record).not.toMatch(/status_code/);
  });

  it('use only contract metrics, `up` and their own recording rules, and closed label values', () => {
    const recorded = new Set(rules.flatMap((r) => (r.record ? [r.record] : [])));
    for (const rule of rules) {
      const unknown = metricNames(rule.expr).filter((n) => !CONTRACT_METRICS.has(n) && !recorded.has(n) && n !== 'up');
      expect(unknown, rule.alert ?? rule.record).toEqual([]);
      expect(valuesOutsideClosedLists(rule.expr), rule.alert ?? rule.record).toEqual([]);
    }
  });

  it('each have a unit test where they fire and one where they stay quiet', () => {
    const tests = parse(read('deploy/prometheus/alerts.test.yaml')) as {
      tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
    };
    const cases = tests.tests.flatMap((t) => t.alert_rule_test ?? []);
    for (const alert of alerts) {
      const mine = cases.filter((c) => c.alertname === alert.alert);
      expect(
        mine.some((c) => (c.exp_alerts ?? []).length > 0),
        `${alert.alert} fires`,
      ).toBe(true);
      expect(
        mine.some((c) => (c.exp_alerts ?? []).length === 0),
        `${alert.alert} stays quiet`,
      ).toBe(true);
    }
  });
});

describe('Grafana dashboard deploy/grafana/agent-incidents.json', () => {
  it('parses, and uses the Prometheus data source variable and optional Jaeger and Tempo ones', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const vars = dashboard.templating.list;
    expect(vars.find((v) => v.name === 'DS_PROMETHEUS')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    expect(vars.find((v) => v.name === 'trace_jaeger')).toMatchObject({ type: 'datasource', query: 'jaeger' });
    expect(vars.find((v) => v.name === 'trace_tempo')).toMatchObject({ type: 'datasource', query: 'tempo' });
    expect(dashboardText).toContain('${DS_PROMETHEUS}');
  });

  it('requires only Prometheus: no Tempo input, every panel query on DS_PROMETHEUS, trace data sources only in links', () => {
    const inputs = (dashboard as { __inputs?: { type: string; pluginId: string }[] }).__inputs ?? [];
    for (const input of inputs) expect(input).toMatchObject({ type: 'datasource', pluginId: 'prometheus' });
    expect(dashboardText).not.toContain('DS_TEMPO');
    for (const panel of allPanels) {
      for (const target of panel.targets ?? [])
        expect((target as { datasource?: { uid?: string } }).datasource?.uid, panel.title).toBe('${DS_PROMETHEUS}');
    }
    // The trace data source variables appear in data links only: a missing one empties a link, no panel.
    const withoutLinks = JSON.stringify({
      ...dashboard,
      panels: allPanels.map((p) => ({ ...p, fieldConfig: undefined })),
      templating: undefined,
    });
    expect(withoutLinks).not.toMatch(/trace_jaeger|trace_tempo/);
    // And the way to traces is explained on the dashboard itself, for whichever backend there is.
    const text = allPanels.find((p) => p.type === 'text') as { options?: { content?: string } } | undefined;
    expect(text?.options?.content).toMatch(/Jaeger UI[\s\S]*Tempo/);
  });

  it('shows a run without a cause, phase or retry safety label as "none", never as an empty name', () => {
    const grouped = dashboardExprs.filter((e) => /by \([^)]*incident_(cause|phase|retry_safety)/.test(e));
    expect(grouped.length).toBeGreaterThanOrEqual(4);
    for (const expr of grouped) {
      const label = /by \([^)]*?(incident_(?:cause|phase|retry_safety))\)/.exec(expr)![1]!;
      expect(expr, expr).toMatch(new RegExp(`^label_replace\\(.*, "${label}", "none", "${label}", ""\\)$`));
    }
  });

  it('shows the tokens and cost lost to incidents by cause, per hour, for the selected services', () => {
    for (const [title, metric] of [
      ['Tokens lost to incidents', 'agent_incidents_spans_tokens_lost_total'],
      ['Cost lost to incidents', 'agent_incidents_spans_cost_lost_USD_total'],
    ]) {
      const panel = allPanels.find((p) => p.title === title) as { targets?: { expr: string }[] } | undefined;
      const expr = panel?.targets?.[0]?.expr ?? '';
      expect(expr, title).toContain(
        `sum by (incident_cause) (rate(${metric}{exported_job=~"$service"}[$__rate_interval])) * 3600`,
      );
    }
  });

  it('titles and describes every panel', () => {
    expect(allPanels.length).toBeGreaterThan(0);
    for (const panel of allPanels) {
      expect(panel.title?.trim(), JSON.stringify(panel).slice(0, 120)).toBeTruthy();
      expect(panel.description?.trim(), panel.title).toBeTruthy();
    }
  });

  it('queries only metrics of the contract', () => {
    expect(dashboardExprs.length).toBeGreaterThan(0);
    for (const expr of dashboardExprs) {
      expect(metricNames(expr).length, expr).toBeGreaterThan(0);
      expect(
        metricNames(expr).filter((n) => !CONTRACT_METRICS.has(n)),
        expr,
      ).toEqual([]);
    }
    expect(variableQueries).toContainEqual(['agent_incidents_calls_total', 'service_name']);
    for (const [metric] of variableQueries) expect(CONTRACT_METRICS.has(metric), metric).toBe(true);
  });

  it('filters only on values of the closed lists, and never on status_code', () => {
    for (const expr of dashboardExprs) {
      expect(valuesOutsideClosedLists(expr), expr).toEqual([]);
      expect(expr).not.toMatch(/status_code/);
    }
  });

  it('links a cause to its traces in the Jaeger UI, and in Grafana Explore with Jaeger or Tempo', () => {
    const table = allPanels.find((p) => p.type === 'table');
    const links = table?.fieldConfig?.defaults?.links ?? [];
    const jaeger = links.find((l) => l.url.startsWith('${jaeger_url}/search?service=${__data.fields.service_name}'));
    expect(decodeURIComponent(jaeger?.url ?? '')).toContain(
      'tags={"incident.cause":"${__data.fields.incident_cause}"}',
    );
    const explore = links
      .filter((l) => l.url.startsWith('/explore'))
      .map(
        (l) =>
          JSON.parse(decodeURIComponent(l.url.split('panes=')[1]!)) as {
            traces: { datasource: string; queries: Record<string, unknown>[] };
          },
      );
    const jaegerExplore = explore.find((e) => e.traces.datasource === '${trace_jaeger}');
    expect(jaegerExplore?.traces.queries[0]).toMatchObject({
      queryType: 'search',
      service: '${__data.fields.service_name}',
      tags: 'incident.cause=${__data.fields.incident_cause}',
    });
    const tempo = explore.find((e) => e.traces.datasource === '${trace_tempo}');
    expect(tempo?.traces.queries[0]?.query).toContain('span.incident.cause = "${__data.fields.incident_cause}"');
    expect(table?.targets?.[0]?.expr).toMatch(/by \(service_name, incident_cause\)/);
  });

  it('the metric-name and label-value checks catch what they should', () => {
    expect(metricNames('sum by (a) (rate(foo_total{x="y"}[5m])) / on (b) bar offset 1h > 0.05')).toEqual([
      'foo_total',
      'bar',
    ]);
    expect(valuesOutsideClosedLists('x{incident_cause=~"user_cancel|socket_drop", incident_outcome!="ok"}')).toEqual([
      'incident_cause=~"socket_drop"',
      'incident_outcome!="ok"',
    ]);
  });
});
