/**
 * Decodes the span events of the native convention into facts. Total: an event
 * with missing or mistyped attributes still gives a fact with safe defaults.
 */
import type {
  CancelOrigin,
  LifecycleKind,
  ProcessCloseReason,
  RecoveryReason,
  ToolFailureKind,
  WatchdogPhase,
} from '../model/enums.js';
import { CAUSE_DETAILS, isOneOf, RECOVERY_ACTIONS, RECOVERY_REASONS, TOOL_SIDE_EFFECTS } from '../model/enums.js';
import type { ErrorFact, Fact, SideEffectBoundary } from '../model/facts.js';
import { GEN_AI, NATIVE_ATTR as A, NATIVE_EVENT as E } from '../model/native-convention.js';
import { safeCode } from '../derive/classify-error.js';
import type { AttributeView, EventView } from './span-view.js';
import { booleanAttr, numberAttr, stringArrayAttr, stringAttr } from './span-view.js';

/** Facts without their timing: the caller adds time, sequence and attempt. */
type Payload = Fact extends infer F ? (F extends Fact ? Omit<F, 'timeMillis' | 'seq' | 'attempt'> : never) : never;

const NATIVE_PREFIX = 'agent_incidents.';

/** True when the event belongs to the native convention. */
export function isNativeEvent(event: EventView): boolean {
  return typeof event.name === 'string' && event.name.startsWith(NATIVE_PREFIX);
}

function toolSideEffects(attributes: AttributeView | undefined): (typeof TOOL_SIDE_EFFECTS)[number] {
  const value = stringAttr(attributes, A.TOOL_SIDE_EFFECTS);
  return isOneOf(TOOL_SIDE_EFFECTS, value) ? value : 'unknown';
}

function boundaryOf(attributes: AttributeView | undefined): SideEffectBoundary {
  const providerExecuted = new Set(stringArrayAttr(attributes, A.BOUNDARY_PROVIDER_EXECUTED));
  const tool = (sideEffects: (typeof TOOL_SIDE_EFFECTS)[number]) => (name: string) => ({
    name,
    sideEffects,
    providerExecuted: providerExecuted.has(name),
  });
  const tools = [
    ...stringArrayAttr(attributes, A.BOUNDARY_READ_ONLY).map(tool('read_only')),
    ...stringArrayAttr(attributes, A.BOUNDARY_UNSAFE).map(tool('unsafe')),
    ...stringArrayAttr(attributes, A.BOUNDARY_UNKNOWN).map(tool('unknown')),
  ];
  const listed = new Set(tools.map((t) => t.name));
  for (const name of providerExecuted) {
    if (!listed.has(name)) tools.push({ name, sideEffects: 'unknown', providerExecuted: true });
  }
  // A list that cannot be read in full hides a tool whose reach is unknown: read as external, never as absent.
  const unreadable = BOUNDARY_LISTS.some((key) => !fullyReadable(attributes?.[key]));
  return { tools, external: unreadable || booleanAttr(attributes, A.BOUNDARY_EXTERNAL) === true };
}

/** The boundary's tool lists, each a string array of tool names. */
const BOUNDARY_LISTS = [A.BOUNDARY_READ_ONLY, A.BOUNDARY_UNSAFE, A.BOUNDARY_UNKNOWN, A.BOUNDARY_PROVIDER_EXECUTED];

/** True for an absent list, or a list {@link stringArrayAttr} reads whole: strings only, at most 256. */
function fullyReadable(value: unknown): boolean {
  if (value === undefined) return true;
  return Array.isArray(value) && value.length <= 256 && value.every((v) => typeof v === 'string');
}

function errorOf(attributes: AttributeView | undefined): ErrorFact {
  const kind = stringAttr(attributes, A.ERROR_KIND);
  const detail = stringAttr(attributes, A.ERROR_DETAIL);
  const code = safeCode(stringAttr(attributes, A.ERROR_CODE));
  const retryable = booleanAttr(attributes, A.ERROR_RETRYABLE);
  const wait = numberAttr(attributes, A.ERROR_RETRY_AFTER_MS);
  // Only present keys are set: facts compare by shape in the conformance tests.
  const extra = wait !== undefined && Number.isFinite(wait) && wait >= 0 ? { retryAfterMillis: wait } : {};
  if (kind === 'transport' && isOneOf(CAUSE_DETAILS.provider_transport_disconnect, detail)) {
    return { kind, detail, code, retryable, ...extra };
  }
  if (kind === 'transport') return { kind, detail: 'unknown', code, retryable, ...extra };
  if (kind === 'api') {
    return {
      kind,
      detail: isOneOf(CAUSE_DETAILS.provider_api_error, detail) ? detail : 'unknown',
      code,
      retryable,
      ...extra,
    };
  }
  return { kind: 'unknown', code, retryable, ...extra };
}

function closed<T extends string>(list: readonly T[], value: unknown, fallback: T): T {
  return isOneOf(list, value) ? value : fallback;
}

/** Decodes one native event, or undefined when its name is not a known fact. */
export function decodeNativeEvent(
  event: EventView,
  attemptKeyOf: (number: number) => string | undefined,
): (Payload & { timeMillis?: number; attempt?: string }) | undefined {
  const at = event.attributes;
  const tool = stringAttr(at, GEN_AI.TOOL_NAME);
  switch (event.name) {
    case E.SIDE_EFFECT_BOUNDARY:
      return { kind: 'side_effect_boundary', boundary: boundaryOf(at) };
    case E.PROVIDER_PROGRESS:
      return { kind: 'provider_progress' };
    case E.TEXT_OUTPUT_STARTED:
      return { kind: 'text_output_started' };
    case E.REASONING_OUTPUT_STARTED:
      return { kind: 'reasoning_output_started' };
    case E.TOOL_INPUT_STARTED:
      return { kind: 'tool_input_started', tool, providerExecuted: booleanAttr(at, A.TOOL_PROVIDER_EXECUTED) === true };
    case E.TOOL_INPUT_COMPLETED:
      return { kind: 'tool_input_completed', tool };
    case E.TOOL_CALL_MATERIALIZED:
      return {
        kind: 'tool_call_materialized',
        tool,
        sideEffects: toolSideEffects(at),
        providerExecuted: booleanAttr(at, A.TOOL_PROVIDER_EXECUTED) === true,
      };
    case E.PENDING_TOOL_INTERRUPTED:
      return { kind: 'pending_tool_interrupted', tool };
    case E.TOOL_EXECUTION_FAILED:
      return {
        kind: 'tool_execution_failed',
        tool,
        detail: closed<ToolFailureKind>(
          CAUSE_DETAILS.tool_execution_failure,
          stringAttr(at, A.TOOL_FAILURE_KIND),
          'unknown',
        ),
        code: safeCode(stringAttr(at, A.ERROR_CODE)),
        startSeen: true,
      };
    case E.TOOL_EXECUTION_INTERRUPTED:
      return { kind: 'tool_execution_interrupted', tool };
    case E.WATCHDOG_FIRED:
      return {
        kind: 'watchdog_fired',
        phase: closed<WatchdogPhase>(CAUSE_DETAILS.watchdog_timeout, stringAttr(at, A.WATCHDOG_PHASE), 'connect'),
        budgetMillis: numberAttr(at, A.WATCHDOG_BUDGET_MS),
      };
    case E.PROVIDER_ERROR:
      return { kind: 'provider_error', error: errorOf(at) };
    case E.ATTEMPT_FINISHED:
      return { kind: 'attempt_finished' };
    case E.RETRY_ISSUED: {
      const number = numberAttr(at, A.RETRY_OF_ATTEMPT);
      return { kind: 'retry_issued', ofAttempt: number === undefined ? undefined : attemptKeyOf(number) };
    }
    case E.USER_CANCEL:
      return {
        kind: 'user_cancel',
        origin: closed<CancelOrigin>(CAUSE_DETAILS.user_cancel, stringAttr(at, A.CANCEL_ORIGIN), 'unknown'),
      };
    case E.LIFECYCLE_CLOSE: {
      const initiated = numberAttr(at, A.LIFECYCLE_INITIATED_AT);
      return {
        kind: 'lifecycle_close',
        lifecycle: closed<LifecycleKind>(
          CAUSE_DETAILS.local_lifecycle_close,
          stringAttr(at, A.LIFECYCLE_KIND),
          'unknown_lifecycle_close',
        ),
        // The close is ordered by when it was initiated, not when it reached the run.
        ...(initiated !== undefined && initiated <= event.timeMillis ? { timeMillis: initiated } : {}),
      };
    }
    case E.RECOVERY_ACTION: {
      const action = stringAttr(at, A.RECOVERY_ACTION);
      if (!isOneOf(RECOVERY_ACTIONS, action)) return undefined;
      return {
        kind: 'recovery_action',
        action,
        reason: closed<RecoveryReason>(RECOVERY_REASONS, stringAttr(at, A.RECOVERY_REASON), 'unknown'),
        strategy: safeCode(stringAttr(at, A.RECOVERY_STRATEGY)) ?? 'custom',
      };
    }
    case E.SETUP_FAILURE:
      return { kind: 'setup_failure', code: safeCode(stringAttr(at, A.ERROR_CODE)) };
    case E.PROCESS_EXIT: {
      const exitCode = numberAttr(at, A.PROCESS_EXIT_CODE);
      return {
        kind: 'process_exit',
        reason: closed<ProcessCloseReason>(
          CAUSE_DETAILS.process_exit,
          stringAttr(at, A.PROCESS_CLOSE_REASON),
          'execution_failed',
        ),
        exitCode: exitCode !== undefined && Number.isInteger(exitCode) ? exitCode : undefined,
        signal: safeCode(stringAttr(at, A.PROCESS_SIGNAL)),
      };
    }
    default:
      return undefined;
  }
}
