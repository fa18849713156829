/** Markup that cannot carry file data unescaped (src/report/html/markup.ts): interpolated text is escaped, only Html is inserted as is. */
import { describe, expect, it } from 'vitest';
import type { HtmlValue } from '../../../src/report/html/markup.js';
import { escapeHtml, Html, html, trusted } from '../../../src/report/html/markup.js';

describe('escapeHtml', () => {
  it.each([
    ['plain', 'plain'],
    ['a & b', 'a &amp; b'],
    ['<script>', '&lt;script&gt;'],
    ['"quoted"', '&quot;quoted&quot;'],
    ["it's", 'it&#39;s'],
    ['&amp;', '&amp;amp;'],
    ['', ''],
  ])('%j → %j', (text, escaped) => {
    expect(escapeHtml(text)).toBe(escaped);
  });
});

describe('html template', () => {
  it.each<[string, HtmlValue, string]>([
    ['a string is escaped', '<b>"x"</b>', '<p>&lt;b&gt;&quot;x&quot;&lt;/b&gt;</p>'],
    ['Html is inserted as is', new Html('<b>x</b>'), '<p><b>x</b></p>'],
    ['a finite number is written', 1204, '<p>1204</p>'],
    ['NaN adds nothing', Number.NaN, '<p></p>'],
    ['Infinity adds nothing', Number.POSITIVE_INFINITY, '<p></p>'],
    ['undefined adds nothing', undefined, '<p></p>'],
    ['null adds nothing', null, '<p></p>'],
    ['false adds nothing', false, '<p></p>'],
    ['a list is flattened, each item by its kind', ['<', trusted('<i>'), 2, [false, '&']], '<p>&lt;<i>2&amp;</p>'],
    ['an empty list adds nothing', [], '<p></p>'],
  ])('%s', (_, value, markup) => {
    expect(html`<p>${value}</p>`.value).toBe(markup);
  });

  it('keeps literal parts as written and fills each hole in order', () => {
    const out = html`<a href="${'/x?a=1&b="2"'}" title="${"it's"}">${trusted('<em>e</em>')}</a>`;
    expect(out).toBeInstanceOf(Html);
    expect(out.value).toBe('<a href="/x?a=1&amp;b=&quot;2&quot;" title="it&#39;s"><em>e</em></a>');
  });

  it('nests: markup from one template is not escaped again in another', () => {
    const inner = html`<i>${'<&>'}</i>`;
    expect(html`<b>${inner}</b>`.value).toBe('<b><i>&lt;&amp;&gt;</i></b>');
  });

  it('a template with no holes is its literal text', () => {
    expect(html`<hr>`.value).toBe('<hr>');
  });
});

describe('Html and trusted', () => {
  it('trusted markup is kept verbatim and reads back through toString', () => {
    const markup = trusted('<style>a>b{}</style>');
    expect(markup.value).toBe('<style>a>b{}</style>');
    expect(String(markup)).toBe('<style>a>b{}</style>');
    expect(`${markup}`).toBe('<style>a>b{}</style>');
  });
});
