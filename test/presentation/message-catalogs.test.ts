/**
 * The message catalogs are keyed by the cause table (src/model/cause-table.ts):
 * each locale has a text for every cause, in the table's order, refines only
 * details the cause has, and the locales refine the same ones. Typecheck
 * already refuses a missing cause; this also catches a stray key or detail.
 */
import { describe, expect, it } from 'vitest';
import { CAUSE_TABLE } from '../../src/model/cause-table.js';
import type { MessageCatalog } from '../../src/presentation/message-catalog.js';
import { MESSAGES_EN } from '../../src/presentation/messages.en.js';
import { MESSAGES_ZH_CN } from '../../src/presentation/messages.zh-CN.js';
import type { PresentationLocale } from '../../src/presentation/present-incident.js';
import { PRESENTATION_LOCALES } from '../../src/presentation/present-incident.js';

const CATALOGS: Record<PresentationLocale, MessageCatalog> = { en: MESSAGES_EN, 'zh-CN': MESSAGES_ZH_CN };

/** The details a catalog refines for `cause`, in its own order. */
const refined = (catalog: MessageCatalog, cause: string): string[] =>
  Object.keys((catalog.causes as Record<string, { details?: object }>)[cause]?.details ?? {});

describe('every locale has the text of every cause in the cause table', () => {
  it.each(PRESENTATION_LOCALES)('%s: one text per cause, in the table order, and no other', (locale) => {
    expect(Object.keys(CATALOGS[locale].causes)).toEqual(CAUSE_TABLE.map((row) => row.cause));
  });

  it.each(PRESENTATION_LOCALES)('%s: refines only details of the cause, in the table order', (locale) => {
    for (const row of CAUSE_TABLE) {
      const details: readonly string[] = row.details;
      const keys = refined(CATALOGS[locale], row.cause);
      expect(keys, row.cause).toEqual(details.filter((d) => keys.includes(d)));
    }
  });

  it('every locale refines the same details as English', () => {
    for (const locale of PRESENTATION_LOCALES)
      for (const row of CAUSE_TABLE)
        expect(refined(CATALOGS[locale], row.cause), `${locale} ${row.cause}`).toEqual(refined(MESSAGES_EN, row.cause));
  });
});
