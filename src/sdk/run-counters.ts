/**
 * The processor's counters (docs/attributes.md#metric-agentruns,
 * docs/attributes.md#metrics-of-lost-usage): finished runs, what their lost
 * attempts used, and redactions. Created on first use, so a global
 * MeterProvider registered after the processor is still the one counted on.
 */
import type { Counter, Meter } from '@opentelemetry/api';
import * as K from '../model/attributes.js';
import type { Incident } from '../model/incident.js';
import type { RedactionTally } from '../sanitize/scrubber.js';
import { lostMetricAttributes, runMetricAttributes } from './run-metric-attributes.js';

/** The counters of one processor, on the meter `meter()` gives when each is first used. */
export class RunCounters {
  readonly #meter: () => Meter;
  #runs: Counter | undefined;
  #tokensLost: Counter | undefined;
  #costLost: Counter | undefined;
  #lostRuns: Counter | undefined;
  #redactions: Counter | undefined;

  /** `meter` is called once per counter, at its first use. */
  constructor(meter: () => Meter) {
    this.#meter = meter;
  }

  /**
   * Counts a finished run on `agent.runs` and, when an attempt of it did not
   * make its answer, what those attempts used: `agent_incidents.tokens.lost`
   * (input and output), `agent_incidents.cost.lost` (only when a lost attempt
   * reported a cost) and `agent_incidents.lost.runs`.
   */
  run(incident: Incident, provider: unknown, providerNames: ReadonlySet<string>): void {
    this.#runs ??= this.#meter().createCounter(K.METRIC_AGENT_RUNS, {
      description: 'Finished agent runs, by incident outcome and cause.',
      unit: '{run}',
    });
    this.#runs.add(1, runMetricAttributes(incident, provider, providerNames));
    const lost = incident.lost;
    if (!lost) return;
    const attributes = lostMetricAttributes(incident);
    this.#tokensLost ??= this.#meter().createCounter(K.METRIC_TOKENS_LOST, {
      description: 'Tokens used by attempts that did not make their run’s answer, by the run’s outcome and cause.',
      unit: '{token}',
    });
    // A zero is added too: the series of a cause exists from its first run, even one that reported no usage.
    this.#tokensLost.add(lost.inputTokens, { ...attributes, [K.ATTR_GEN_AI_TOKEN_TYPE]: 'input' });
    this.#tokensLost.add(lost.outputTokens, { ...attributes, [K.ATTR_GEN_AI_TOKEN_TYPE]: 'output' });
    if (lost.costUsd !== undefined) {
      this.#costLost ??= this.#meter().createCounter(K.METRIC_COST_LOST, {
        description:
          'US dollars spent on attempts that did not make their run’s answer, by the run’s outcome and cause.',
        unit: 'USD',
      });
      this.#costLost.add(lost.costUsd, attributes);
    }
    this.#lostRuns ??= this.#meter().createCounter(K.METRIC_LOST_RUNS, {
      description: 'Runs with attempts that did not make their answer, by whether their lost figures are a floor.',
      unit: '{run}',
    });
    this.#lostRuns.add(1, { ...attributes, [K.ATTR_INCIDENT_LOST_LOWER_BOUND]: String(lost.lowerBound) });
  }

  /** Counts a span's redactions on `agent_incidents.redactions`, by kind (never the values). */
  redactions(tally: RedactionTally): void {
    this.#redactions ??= this.#meter().createCounter(K.METRIC_REDACTIONS, {
      description: 'Values removed or scrubbed from exported spans, by kind (never the values).',
      unit: '{redaction}',
    });
    for (const [kind, n] of tally.byKind) this.#redactions.add(n, { [K.ATTR_REDACTION_KIND]: kind });
  }
}
