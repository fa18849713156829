/**
 * The docs are part of the contract: docs/attributes.md must list exactly the
 * keys and values the code writes, and docs/conventions.md every name of the
 * native convention. These tests read the markdown and compare it with the
 * constants, so a key or value added, renamed or removed on one side fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CauseRow } from '../src/model/cause-table.js';
import { CAUSE_TABLE } from '../src/model/cause-table.js';
import {
  attributes,
  CAUSE_DETAILS,
  CAUSES,
  GEN_AI,
  MISSING_FACTS,
  NATIVE_ATTR,
  NATIVE_EVENT,
  OPERATION,
  OUTCOMES,
  PHASES,
  RECOVERY_ACTIONS,
  RECOVERY_REASONS,
  RETRY_SAFETIES,
  RETRY_SAFETY_REASONS,
  SIDE_EFFECTS,
  TOOL_SIDE_EFFECTS,
} from '../src/index.js';
import { createRecoveryRegistry } from '../src/recovery/index.js';

const attributesDoc = readFileSync(new URL('../docs/attributes.md', import.meta.url), 'utf8');
const conventionsDoc = readFileSync(new URL('../docs/conventions.md', import.meta.url), 'utf8');
const recoveryDoc = readFileSync(new URL('../docs/recovery.md', import.meta.url), 'utf8');

/** The text under `heading` (exact heading text), up to the next heading of the same or a higher level. */
function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^#{1,6} /.test(line) && line.replace(/^#+ /, '').trim() === heading);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const level = /^#+/.exec(lines[start] as string)?.[0].length ?? 1;
  const end = lines.findIndex(
    (line, i) => i > start && /^#{1,6} /.test(line) && (/^#+/.exec(line)?.[0].length ?? 7) <= level,
  );
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The body rows of the markdown tables in `text`, as trimmed cells (header and separator rows skipped). */
function tableRows(text: string): string[][] {
  const rows: string[][] = [];
  let inTable = false;
  for (const line of text.split('\n')) {
    if (!line.trimStart().startsWith('|')) {
      inTable = false;
      continue;
    }
    const cells = line
      .trim()
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split('|')
      .map((c) => c.trim());
    if (!inTable) {
      inTable = true; // header row
      continue;
    }
    if (cells.every((c) => /^:?-+:?$/.test(c))) continue;
    rows.push(cells);
  }
  return rows;
}

/** The backticked value of each row's first cell; a first cell that is not one backticked value fails. */
function firstColumn(text: string): string[] {
  return tableRows(text).map((cells) => {
    const match = /^`([^`]+)`$/.exec(cells[0] ?? '');
    if (!match) throw new Error(`first cell is not a single backticked value: ${cells.join(' | ')}`);
    return match[1] as string;
  });
}

/** Every backticked token in `text`. */
function backticked(text: string): Set<string> {
  return new Set([...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string));
}

/**
 * A cause's usual retryability, comparable between the docs and the cause table: `absent`, `error`
 * (the error's own), or the value of each detail that has one (`*` for a cause with no details).
 */
type Retryability = 'absent' | 'error' | Record<string, boolean>;

/**
 * Reads the "retryable" cell of "Causes and details": clauses split by `;` or `, except`, each
 * `` `true` ``/`` `false` `` alone (every detail) or followed by `for` and the details it holds, or
 * `absent`/`absent otherwise`, or "the error's own". A clause in any other form fails.
 */
function usualRetryableOfCell(cell: string): Retryability {
  let all: boolean | undefined;
  const byDetail: Record<string, boolean> = {};
  for (const clause of cell.split(/;|, except/).map((c) => c.trim())) {
    if (clause === 'absent') return 'absent';
    if (clause.startsWith("the error's own")) return 'error';
    if (clause === 'absent otherwise') continue;
    const match = /^`(true|false)`(?: for (.+))?$/.exec(clause);
    if (!match) throw new Error(`retryable clause not understood: ${clause}`);
    const value = match[1] === 'true';
    if (match[2] === undefined) all = value;
    else for (const detail of backticked(match[2])) byDetail[detail] = value;
  }
  return { ...(all === undefined ? {} : { '*': all }), ...byDetail };
}

/** The same reading of a row of the cause table: a value for every detail collapses to `*` when all agree. */
function usualRetryableOfRow(row: CauseRow): Retryability {
  if (row.retryable === 'absent' || row.retryable === 'error') return row.retryable;
  if (typeof row.retryable === 'boolean') return { '*': row.retryable };
  const byDetail: Record<string, boolean> = Object.fromEntries(
    Object.entries(row.retryable).filter((entry): entry is [string, boolean] => entry[1] !== undefined),
  );
  const values = Object.values(byDetail);
  // A cell names the exceptions to a value that holds for the other details.
  const common = row.details.every((d) => d in byDetail) ? mostCommon(values) : undefined;
  if (common === undefined) return byDetail;
  return { '*': common, ...Object.fromEntries(Object.entries(byDetail).filter(([, v]) => v !== common)) };
}

function mostCommon(values: readonly boolean[]): boolean {
  return values.filter(Boolean).length * 2 >= values.length;
}

describe('docs/attributes.md', () => {
  it('documents every run-span key the code writes, in RUN_ATTRIBUTE_KEYS order', () => {
    expect(firstColumn(section(attributesDoc, 'Run-span keys'))).toEqual([...attributes.RUN_ATTRIBUTE_KEYS]);
  });

  it('documents every attempt-level key the code writes, in ATTEMPT_ATTRIBUTE_KEYS order', () => {
    expect(firstColumn(section(attributesDoc, 'Attempt-level keys'))).toEqual([...attributes.ATTEMPT_ATTRIBUTE_KEYS]);
  });

  it('documents every verdict-revision key the gateway writes, in REVISION_ATTRIBUTE_KEYS order', () => {
    expect(firstColumn(section(attributesDoc, 'Verdict revisions'))).toEqual([...attributes.REVISION_ATTRIBUTE_KEYS]);
  });

  it('documents no incident key the code does not write', () => {
    const known = new Set<string>([
      ...attributes.RUN_ATTRIBUTE_KEYS,
      ...attributes.ATTEMPT_ATTRIBUTE_KEYS,
      ...attributes.REVISION_ATTRIBUTE_KEYS,
      attributes.VERDICT_REVISION_SPAN,
    ]);
    const mentioned = [...backticked(attributesDoc)].filter((token) => /^incident\.[a-z_.]+$/.test(token));
    expect(mentioned.filter((key) => !known.has(key))).toEqual([]);
  });

  const lists: [heading: string, values: readonly string[]][] = [
    ['Outcomes', OUTCOMES],
    ['Causes and details', CAUSES],
    ['Phases', PHASES],
    ['Retry safeties', RETRY_SAFETIES],
    ['Retry-safety reasons', RETRY_SAFETY_REASONS],
    ['Side effects', SIDE_EFFECTS],
    ['Tool side-effect classes', TOOL_SIDE_EFFECTS],
    ['Missing-fact markers', MISSING_FACTS],
    ['Recovery actions', RECOVERY_ACTIONS],
    ['Recovery reasons', RECOVERY_REASONS],
  ];
  it.each(lists)('lists every value of the closed list "%s", and no other, in the code order', (heading, values) => {
    expect(firstColumn(section(attributesDoc, heading))).toEqual([...values]);
  });

  it('lists each cause with exactly its details in the cause table, and CAUSE_DETAILS is that', () => {
    const rows = tableRows(section(attributesDoc, 'Causes and details'));
    const documented = Object.fromEntries(
      rows.map((cells) => [(cells[0] ?? '').replaceAll('`', ''), [...backticked(cells[1] ?? '')]]),
    );
    const expected = Object.fromEntries(CAUSE_TABLE.map((row) => [row.cause, [...row.details]]));
    expect(documented).toEqual(expected);
    expect(Object.fromEntries(CAUSES.map((cause) => [cause, [...CAUSE_DETAILS[cause]]]))).toEqual(expected);
  });

  it('gives each cause the usual retryability of the cause table', () => {
    const rows = tableRows(section(attributesDoc, 'Causes and details'));
    const documented = Object.fromEntries(
      rows.map((cells) => [(cells[0] ?? '').replaceAll('`', ''), usualRetryableOfCell(cells[2] ?? '')]),
    );
    const expected = Object.fromEntries(CAUSE_TABLE.map((row: CauseRow) => [row.cause, usualRetryableOfRow(row)]));
    expect(documented).toEqual(expected);
  });

  it('names each retry-safety reason with retry safeties from the closed list', () => {
    for (const cells of tableRows(section(attributesDoc, 'Retry-safety reasons'))) {
      const safeties = [...backticked(cells[1] ?? '')];
      expect(safeties.length, cells[0]).toBeGreaterThan(0);
      for (const safety of safeties) expect(RETRY_SAFETIES, cells[0]).toContain(safety);
    }
  });

  it('states the current schema version and the metric name', () => {
    expect(section(attributesDoc, 'Schema version')).toContain(
      `\`incident.schema_version\` is \`${attributes.SCHEMA_VERSION}\``,
    );
    expect(attributesDoc).toContain(`## Metric \`${attributes.METRIC_AGENT_RUNS}\``);
  });
});

describe('docs/conventions.md', () => {
  it('has one fact-event row for every NATIVE_EVENT, in the code order', () => {
    const table = section(conventionsDoc, 'Fact events');
    const events = firstColumn(table.slice(0, table.indexOf('### ')));
    expect(events).toEqual(Object.values(NATIVE_EVENT));
  });

  it('mentions every NATIVE_ATTR key, every GEN_AI key and every span-role operation', () => {
    const mentioned = backticked(conventionsDoc);
    const names = [
      ...Object.values(NATIVE_ATTR),
      ...Object.values(GEN_AI),
      OPERATION.RUN,
      OPERATION.TOOL,
      ...OPERATION.ATTEMPTS,
    ];
    expect(names.filter((name) => !mentioned.has(name))).toEqual([]);
  });

  it('mentions no agent_incidents name that the code does not define', () => {
    const known = new Set<string>([...Object.values(NATIVE_EVENT), ...Object.values(NATIVE_ATTR)]);
    // Patterns the prose uses for groups of names.
    known.add('agent_incidents.*');
    known.add('agent_incidents.boundary.*_tools');
    const unknown = [...backticked(conventionsDoc)].filter(
      (t) => /^agent_incidents\.[a-z_.*]+$/.test(t) && !known.has(t),
    );
    expect(unknown).toEqual([]);
  });
});

describe('docs/recovery.md', () => {
  const registry = createRecoveryRegistry();
  /** Options that come as services or constructor arguments, not from configuration. */
  const CODE_ONLY = new Set(['store', 'random', 'loadCheckpoint', 'confirmSideEffects']);

  it.each(registry.names())('documents every configurable option of %s, and only options it has', (name) => {
    const documented = firstColumn(section(recoveryDoc, name)).map((option) => option.replace(/\(.*\)$/, ''));
    const configurable = registry.optionKeys(name) ?? [];
    expect(documented.filter((option) => !CODE_ONLY.has(option)).sort()).toEqual([...configurable].sort());
  });

  it('shows every action kind in the protocol table', () => {
    expect(firstColumn(section(recoveryDoc, 'The protocol')).sort()).toEqual([...RECOVERY_ACTIONS].sort());
  });
});
