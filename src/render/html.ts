/**
 * The web view's one escape helper (docs/ui.md, "Security"). Every byte of transcript text that
 * reaches a page goes through `esc` (or `html\`…\``, which applies it to each value): markup,
 * quotes and `javascript:` links display as text, and the characters that reorder or hide text
 * (bidi controls, other invisible controls) are replaced by a visible marker.
 */

/** A fragment that is already HTML (made by `html` or `raw`): embedded as it is. */
export class Html {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/**
 * Control (Cc) and format (Cf) characters other than tab and newline: C0/C1 controls, the
 * bidirectional controls (U+202A–U+202E, U+2066–U+2069, LRM, RLM, ALM), zero-width characters, BOM.
 */
const INVISIBLE = /(?![\t\n])[\p{Cc}\p{Cf}]/gu;

/** The marker shown in place of an invisible character: `⟦U+202E⟧`. */
export function visibleMarker(ch: string): string {
  return `⟦U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟧`;
}

/** Every invisible control made visible (text that another renderer escapes, such as Markdown). */
export function visible(text: string): string {
  return text.replace(INVISIBLE, visibleMarker);
}

/** Text to HTML: escaped, and every invisible control made visible. */
export function esc(text: string | number | null | undefined): string {
  if (text === null || text === undefined) return "";
  return String(text)
    .replace(INVISIBLE, visibleMarker)
    .replace(/[&<>"'`]/g, (c) => ENTITIES[c]!);
}

/** HTML that is trusted as it is (our own markup only, never transcript text). */
export function raw(markup: string): Html {
  return new Html(markup);
}

type Value = Html | string | number | null | undefined | false | readonly Value[];

function embed(v: Value): string {
  if (v === null || v === undefined || v === false) return "";
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(embed).join("");
  return esc(v as string | number);
}

/** A template whose every `${value}` is escaped unless it is already `Html`. */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += embed(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** A query string for a link (values encoded; the result still goes through `html`). */
export function href(path: string, params: Record<string, string | number | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== null && v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/**
 * Text with the search terms marked: each match (case-insensitive) becomes `<mark>`; the text
 * around and inside the marks is escaped like any other.
 */
export function highlight(text: string, terms: readonly string[]): Html {
  const words = terms.map((t) => t.trim()).filter((t) => t.length > 0);
  if (words.length === 0) return new Html(esc(text));
  const pattern = new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "giu");
  let out = "";
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    if (m[0].length === 0) continue;
    out += `${esc(text.slice(last, m.index))}<mark>${esc(m[0])}</mark>`;
    last = m.index + m[0].length;
  }
  return new Html(out + esc(text.slice(last)));
}
