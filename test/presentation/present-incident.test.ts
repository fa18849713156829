/**
 * presentIncident as a set of promises to the user: every verdict gets words in
 * both locales, no provider or error text leaks through, a cancel is never an
 * error, and severity follows the outcome and retry safety.
 */
import { describe, expect, it } from 'vitest';
import type {
  Cause,
  Incident,
  Outcome,
  Phase,
  RecoveryActionKind,
  RecoveryReason,
  RetrySafety,
  RetrySafetyReason,
} from '../../src/index.js';
import {
  CAUSE_DETAILS,
  CAUSES,
  PHASES,
  RECOVERY_ACTIONS,
  RECOVERY_REASONS,
  RETRY_SAFETIES,
} from '../../src/model/enums.js';
import type { IncidentPresentation, PresentationLocale } from '../../src/presentation/present-incident.js';
import { PRESENTATION_LOCALES, presentIncident } from '../../src/presentation/present-incident.js';

const LEAKED_CODE = 'UND_ERR_SOCKET';

function incident(fields: {
  outcome: Outcome;
  cause?: Cause;
  causeDetail?: string;
  phase?: Phase;
  retrySafety?: RetrySafety;
  retrySafetyReason?: RetrySafetyReason;
}): Incident {
  return {
    sideEffects: 'none',
    factsComplete: true,
    missingFacts: [],
    errorCode: LEAKED_CODE,
    attempts: 1,
    recoveredAttempts: 0,
    ...fields,
  };
}

/** Every detail of a cause, plus no detail at all. */
const detailsOf = (cause: Cause): Array<string | undefined> => [undefined, ...CAUSE_DETAILS[cause]];

/** Every failed incident a cause and a retry safety can produce, over all details and phases. */
function variants(cause: Cause, retrySafety: RetrySafety, outcome: Outcome = 'failed'): Incident[] {
  return detailsOf(cause).flatMap((causeDetail) =>
    PHASES.map((phase) => incident({ outcome, cause, causeDetail, phase, retrySafety })),
  );
}

const allText = (p: IncidentPresentation) => `${p.title}\n${p.message}\n${p.suggestedAction}`;

const pairs = CAUSES.flatMap((cause) => RETRY_SAFETIES.map((retrySafety) => ({ cause, retrySafety })));

describe('every cause × retry safety has words in both locales', () => {
  it.each(pairs)('$cause × $retrySafety: non-empty title, message and action', ({ cause, retrySafety }) => {
    for (const locale of PRESENTATION_LOCALES) {
      for (const outcome of ['failed', 'incomplete'] as const) {
        for (const i of variants(cause, retrySafety, outcome)) {
          const p = presentIncident(i, { locale });
          expect(p.title.trim(), `${locale} ${JSON.stringify(i)}`).not.toBe('');
          expect(p.message.trim()).not.toBe('');
          expect(p.suggestedAction.trim()).not.toBe('');
          expect(['info', 'warning', 'error']).toContain(p.severity);
        }
      }
    }
  });

  it.each([{ outcome: 'success' as const }, { outcome: 'recovered' as const }])(
    '$outcome without a cause has words in both locales',
    ({ outcome }) => {
      for (const locale of PRESENTATION_LOCALES) {
        const p = presentIncident(incident({ outcome }), { locale });
        expect([p.title, p.message, p.suggestedAction].every((s) => s.trim() !== '')).toBe(true);
      }
    },
  );
});

describe('no provider or error text reaches the user', () => {
  // Words that would mean raw error text, a provider name or an HTTP status leaked through.
  const PROVIDER_WORDS = [
    LEAKED_CODE,
    'UND_ERR',
    'ECONNRESET',
    'undici',
    'openai',
    'anthropic',
    'gemini',
    'claude',
    'gpt',
    'http',
    'status',
    '429',
    '503',
    'api_error',
    'rate_limit',
    'stack',
    'exception',
    'undefined',
    'null',
    '[object',
    'socket',
    'TypeError',
  ];
  const allIncidents = [
    ...pairs.flatMap(({ cause, retrySafety }) => [
      ...variants(cause, retrySafety),
      ...variants(cause, retrySafety, 'recovered'),
    ]),
    incident({ outcome: 'success' }),
    incident({ outcome: 'recovered' }),
  ];

  it.each(PRESENTATION_LOCALES)('%s: no message contains a provider-ish word or the errorCode', (locale) => {
    for (const i of allIncidents) {
      const text = allText(presentIncident(i, { locale })).toLowerCase();
      for (const word of PROVIDER_WORDS)
        expect(text, `${word} in ${JSON.stringify(i)}`).not.toContain(word.toLowerCase());
    }
  });

  it('a causeDetail outside the closed list is ignored, never echoed', () => {
    const tampered = 'rate_limit_error: 429 from OpenAI, UND_ERR_SOCKET';
    for (const locale of PRESENTATION_LOCALES) {
      const p = presentIncident(
        incident({ outcome: 'failed', cause: 'provider_api_error', causeDetail: tampered, retrySafety: 'auto_retry' }),
        { locale },
      );
      const plain = presentIncident(
        incident({ outcome: 'failed', cause: 'provider_api_error', retrySafety: 'auto_retry' }),
        { locale },
      );
      expect(p).toEqual(plain);
    }
  });
});

describe('a cancelled run reads as the user’s choice', () => {
  const ERROR_WORDS: Record<PresentationLocale, string[]> = {
    en: ['error', 'fail', 'problem', 'wrong', 'could not', 'crash', 'unexpected'],
    'zh-CN': ['失败', '错误', '出错', '异常', '故障', '崩溃', '问题', '意外'],
  };

  it.each(PRESENTATION_LOCALES)('%s: every cancelled variant is info and has no error words', (locale) => {
    for (const retrySafety of RETRY_SAFETIES) {
      for (const i of variants('user_cancel', retrySafety, 'cancelled')) {
        for (const reason of [undefined, 'user_cancel', 'retry_budget_exhausted'] as const) {
          const p = presentIncident({ ...i, retrySafetyReason: reason }, { locale });
          expect(p.severity).toBe('info');
          const text = allText(p).toLowerCase();
          for (const word of ERROR_WORDS[locale]) expect(text, `${word} in ${JSON.stringify(i)}`).not.toContain(word);
        }
      }
    }
  });

  it('says the user stopped it', () => {
    const i = incident({
      outcome: 'cancelled',
      cause: 'user_cancel',
      causeDetail: 'user_stop',
      phase: 'text_generation',
      retrySafety: 'do_not_retry',
      retrySafetyReason: 'user_cancel',
    });
    expect(presentIncident(i).title).toBe('You stopped the run');
    expect(presentIncident(i, { locale: 'zh-CN' }).title).toBe('你已停止本次运行');
  });
});

describe('locale', () => {
  const i = incident({
    outcome: 'failed',
    cause: 'watchdog_timeout',
    causeDetail: 'silent_stream',
    phase: 'text_generation',
    retrySafety: 'offer_continue',
  });

  it('defaults to English', () => {
    expect(presentIncident(i)).toEqual(presentIncident(i, { locale: 'en' }));
  });

  it.each(['fr', 'zh', 'constructor', ''])('an unknown locale %j falls back to English', (locale) => {
    expect(presentIncident(i, { locale: locale as PresentationLocale })).toEqual(presentIncident(i, { locale: 'en' }));
  });

  it('zh-CN is Chinese text with the fixed terminology', () => {
    const p = presentIncident(
      incident({
        outcome: 'failed',
        cause: 'provider_transport_disconnect',
        phase: 'tool_execution',
        retrySafety: 'ask_user_before_retry',
      }),
      { locale: 'zh-CN' },
    );
    expect(p.title).toContain('模型服务');
    expect(p.message).toContain('工具');
    expect(p.suggestedAction).toContain('重试');
  });
});

describe('success and recovered wording', () => {
  it.each([
    { locale: 'en' as const, success: 'Run completed', recovered: 'recovered after a retry' },
    { locale: 'zh-CN' as const, success: '运行已完成', recovered: '重试后已恢复' },
  ])('$locale: success completes, recovered says it recovered after a retry', ({ locale, success, recovered }) => {
    const ok = presentIncident(incident({ outcome: 'success' }), { locale });
    expect(ok).toMatchObject({ title: success, severity: 'info' });
    const withCause = presentIncident(
      incident({
        outcome: 'recovered',
        cause: 'provider_transport_disconnect',
        causeDetail: 'socket_closed',
        phase: 'text_generation',
        retrySafety: 'auto_retry',
      }),
      { locale },
    );
    const withoutCause = presentIncident(incident({ outcome: 'recovered' }), { locale });
    for (const p of [withCause, withoutCause]) {
      expect(p.severity).toBe('info');
      expect(`${p.title} ${p.message}`.toLowerCase()).toContain(recovered.toLowerCase());
    }
  });
});

describe('severity follows outcome and retry safety', () => {
  const cases: Array<{ name: string; i: Incident; want: IncidentPresentation['severity'] }> = [
    {
      name: 'incomplete is a warning',
      i: incident({
        outcome: 'incomplete',
        cause: 'crash_or_restart_incomplete',
        causeDetail: 'run_never_ended',
        retrySafety: 'unknown',
      }),
      want: 'warning',
    },
    {
      name: 'failed but auto-retryable is a warning',
      i: incident({
        outcome: 'failed',
        cause: 'provider_transport_disconnect',
        retrySafety: 'auto_retry',
        retrySafetyReason: 'no_visible_output_or_tool_execution',
      }),
      want: 'warning',
    },
    {
      name: 'failed with continue offered is a warning',
      i: incident({ outcome: 'failed', cause: 'watchdog_timeout', retrySafety: 'offer_continue' }),
      want: 'warning',
    },
    {
      name: 'a not-retryable error is an error',
      i: incident({
        outcome: 'failed',
        cause: 'provider_api_error',
        causeDetail: 'auth',
        retrySafety: 'do_not_retry',
        retrySafetyReason: 'not_retryable_error',
      }),
      want: 'error',
    },
    {
      name: 'a host close is a warning, not an error',
      i: incident({
        outcome: 'failed',
        cause: 'local_lifecycle_close',
        retrySafety: 'do_not_retry',
        retrySafetyReason: 'local_lifecycle_close',
      }),
      want: 'warning',
    },
    {
      name: 'cancelled is info',
      i: incident({
        outcome: 'cancelled',
        cause: 'user_cancel',
        retrySafety: 'do_not_retry',
        retrySafetyReason: 'user_cancel',
      }),
      want: 'info',
    },
  ];
  it.each(cases)('$name', ({ i, want }) => {
    for (const locale of PRESENTATION_LOCALES) expect(presentIncident(i, { locale }).severity).toBe(want);
  });
});

describe('the cause detail refines the text', () => {
  it.each([
    { cause: 'provider_api_error' as const, details: ['rate_limit', 'quota_exhausted', 'server_overload'] },
    { cause: 'watchdog_timeout' as const, details: ['connect', 'silent_stream', 'total'] },
  ])('$cause: each of $details gets its own title and message', ({ cause, details }) => {
    for (const locale of PRESENTATION_LOCALES) {
      const shown = details.map((causeDetail) =>
        presentIncident(incident({ outcome: 'failed', cause, causeDetail, retrySafety: 'auto_retry' }), { locale }),
      );
      expect(new Set(shown.map((p) => p.title)).size).toBe(details.length);
      expect(new Set(shown.map((p) => p.message)).size).toBe(details.length);
    }
  });

  it('a not-retryable detail suggests its own fix instead of a retry', () => {
    const p = presentIncident(
      incident({
        outcome: 'failed',
        cause: 'provider_api_error',
        causeDetail: 'context_overflow',
        retrySafety: 'do_not_retry',
        retrySafetyReason: 'not_retryable_error',
      }),
    );
    expect(p.suggestedAction).toBe('Shorten the conversation or start a new one.');
  });

  it('the phase says some text was already shown', () => {
    const p = presentIncident(
      incident({
        outcome: 'failed',
        cause: 'provider_transport_disconnect',
        phase: 'text_generation',
        retrySafety: 'offer_continue',
      }),
    );
    expect(p.message).toContain('after some text was shown');
    expect(p.suggestedAction).toBe('Continue from where it stopped.');
  });
});

describe('what the recovery strategy did wins over what the verdict allowed', () => {
  const drop = {
    outcome: 'failed',
    cause: 'provider_transport_disconnect',
    phase: 'before_first_provider_progress',
    retrySafety: 'auto_retry',
    retrySafetyReason: 'no_visible_output_or_tool_execution',
  } as const;
  const withRecovery = (
    action: RecoveryActionKind,
    reason: RecoveryReason,
    fields: Partial<Incident> = {},
  ): Incident => ({
    ...incident(drop),
    ...fields,
    recovery: { action, reason, strategy: 'safeRetry' },
  });

  it.each([
    {
      promise: 'a strategy that asked because its budget is spent never says it may be retrying',
      i: withRecovery('ask_user', 'retry_budget_exhausted'),
      en: 'used up',
      zh: '用完',
    },
    {
      promise: 'a retry-after longer than the strategy waits says to try later',
      i: withRecovery('ask_user', 'retry_after_too_long'),
      en: 'Try again later',
      zh: '稍后',
    },
    {
      promise: 'a resume says it continues from the saved point',
      i: withRecovery('resume', 'checkpoint_available'),
      en: 'last saved point',
      zh: '保存的进度',
    },
    {
      promise: 'a reassignment says it starts again',
      i: withRecovery('reassign', 'reassignable'),
      en: 'started again',
      zh: '重新开始',
    },
    {
      promise: 'a failed task says its retries are used up',
      i: withRecovery('fail', 'retries_exhausted'),
      en: 'used all its retries',
      zh: '用完',
    },
    {
      promise: 'a resume refused over side effects says why',
      i: withRecovery('ask_user', 'side_effects_unconfirmed', {
        retrySafety: 'ask_user_before_retry',
        retrySafetyReason: 'unsafe_side_effect_started',
      }),
      en: 'not resumed automatically',
      zh: '没有自动恢复',
    },
  ])('$promise', ({ i, en, zh }) => {
    const english = presentIncident(i, { locale: 'en' });
    expect(allText(english)).toContain(en);
    expect(allText(english)).not.toContain('retrying automatically');
    expect(allText(presentIncident(i, { locale: 'zh-CN' }))).toContain(zh);
  });

  it('every action and reason with its own words has them in both locales, non-empty', () => {
    for (const action of RECOVERY_ACTIONS) {
      for (const reason of RECOVERY_REASONS) {
        for (const locale of PRESENTATION_LOCALES) {
          const p = presentIncident(withRecovery(action, reason), { locale });
          expect(p.message.length * p.suggestedAction.length, `${action}/${reason}/${locale}`).toBeGreaterThan(0);
        }
      }
    }
    // Both catalogs cover the same recoveries: no locale falls back to the verdict's text where the other does not.
    const en = [...RECOVERY_ACTIONS, ...RECOVERY_REASONS].map((k) =>
      allText(
        presentIncident(withRecovery(isAction(k) ? k : 'ask_user', isAction(k) ? 'unknown' : k), { locale: 'en' }),
      ),
    );
    const zh = [...RECOVERY_ACTIONS, ...RECOVERY_REASONS].map((k) =>
      allText(
        presentIncident(withRecovery(isAction(k) ? k : 'ask_user', isAction(k) ? 'unknown' : k), { locale: 'zh-CN' }),
      ),
    );
    const plainEn = allText(presentIncident(incident(drop), { locale: 'en' }));
    const plainZh = allText(presentIncident(incident(drop), { locale: 'zh-CN' }));
    expect(en.map((t) => t === plainEn)).toEqual(zh.map((t) => t === plainZh));
  });

  it('a cancel stays a cancel whatever the strategy recorded', () => {
    const cancelled = withRecovery('stop', 'user_cancel', {
      outcome: 'cancelled',
      cause: 'user_cancel',
      retrySafety: 'do_not_retry',
      retrySafetyReason: 'user_cancel',
    });
    expect(presentIncident(cancelled)).toEqual(presentIncident({ ...cancelled, recovery: undefined }));
  });

  it('a task that used all its retries is an error; a reassignment or resume is not', () => {
    expect(presentIncident(withRecovery('fail', 'retries_exhausted')).severity).toBe('error');
    expect(presentIncident(withRecovery('reassign', 'reassignable')).severity).toBe('warning');
    expect(presentIncident(withRecovery('resume', 'checkpoint_available')).severity).toBe('warning');
  });
});

function isAction(value: string): value is RecoveryActionKind {
  return (RECOVERY_ACTIONS as readonly string[]).includes(value);
}
