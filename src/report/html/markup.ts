/**
 * Markup that cannot carry file data unescaped: {@link html} is a tagged
 * template whose interpolated strings are always HTML-escaped; only another
 * {@link Html} value (markup this code wrote) is inserted as is. Every
 * attribute in a template is double-quoted, so an escaped value cannot leave it.
 */

/** A piece of markup written by this code (never built from unescaped input). */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** What a template may interpolate: text (escaped), markup, lists of either; `undefined`, `null` and `false` add nothing. */
export type HtmlValue = Html | string | number | readonly HtmlValue[] | undefined | null | false;

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `text` with `& < > " '` replaced by entities: safe in element content and in a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

function append(out: string[], value: HtmlValue): void {
  if (value === undefined || value === null || value === false) return;
  if (value instanceof Html) out.push(value.value);
  else if (typeof value === 'number') out.push(Number.isFinite(value) ? String(value) : '');
  else if (typeof value === 'string') out.push(escapeHtml(value));
  else for (const item of value) append(out, item);
}

/** Markup from a template: literal parts as written, interpolations escaped unless they are {@link Html}. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  const out: string[] = [];
  strings.forEach((literal, i) => {
    out.push(literal);
    if (i < values.length) append(out, values[i]);
  });
  return new Html(out.join(''));
}

/** Markup this code wrote as a constant (styles, the script): never file data. */
export function trusted(markup: string): Html {
  return new Html(markup);
}
