/**
 * The attributes of one `agent.runs` count (docs/attributes.md#metric-agentruns)
 * and of the lost-usage counters (docs/attributes.md#metrics-of-lost-usage):
 * closed values only, so the metrics' cardinality stays bounded.
 */
import * as K from '../model/attributes.js';
import type { Incident } from '../model/incident.js';
import { GEN_AI } from '../model/native-convention.js';

/**
 * The `agent.runs` attributes of a finished run: its outcome, and unless it
 * succeeded its cause, phase and retry safety; the recovery action; the
 * provider name when it is one of `providerNames`, else `_OTHER`.
 */
export function runMetricAttributes(
  incident: Incident,
  provider: unknown,
  providerNames: ReadonlySet<string>,
): Record<string, string> {
  const attributes: Record<string, string> = { [K.ATTR_INCIDENT_OUTCOME]: incident.outcome };
  if (incident.outcome !== 'success') {
    if (incident.cause) attributes[K.ATTR_INCIDENT_CAUSE] = incident.cause;
    if (incident.phase) attributes[K.ATTR_INCIDENT_PHASE] = incident.phase;
    if (incident.retrySafety) attributes[K.ATTR_INCIDENT_RETRY_SAFETY] = incident.retrySafety;
  }
  // The action is a closed list; the strategy name is left out, as the runtime names it.
  if (incident.recovery) attributes[K.ATTR_INCIDENT_RECOVERY_ACTION] = incident.recovery.action;
  if (typeof provider === 'string')
    attributes[GEN_AI.PROVIDER_NAME] = providerNames.has(provider) ? provider : '_OTHER';
  return attributes;
}

/**
 * The attributes shared by the lost-usage counts of a run: its outcome, and
 * unless it succeeded its cause and retry safety (the phase is left out: with
 * the token type it would multiply the series for little).
 */
export function lostMetricAttributes(incident: Incident): Record<string, string> {
  const attributes: Record<string, string> = { [K.ATTR_INCIDENT_OUTCOME]: incident.outcome };
  if (incident.outcome !== 'success') {
    if (incident.cause) attributes[K.ATTR_INCIDENT_CAUSE] = incident.cause;
    if (incident.retrySafety) attributes[K.ATTR_INCIDENT_RETRY_SAFETY] = incident.retrySafety;
  }
  return attributes;
}
