/**
 * Markdown of prompts and replies, rendered for the web view (docs/ui.md, "Security"). The
 * transcript is untrusted, so the parser is a well-kept one (markdown-it: CommonMark and GitHub's
 * tables, no regex-built HTML of our own) and is told to trust nothing:
 *
 * - `html: false`: raw HTML in the text (`<script>`, `<img onerror>`) is escaped, shown as text;
 * - links only to `http:`, `https:` and `mailto:` (`javascript:`, `data:`, `file:`, relative
 *   paths into this server stay text), opened with `rel="noopener noreferrer nofollow"`;
 * - no images: an image would be a request to another host (and the CSP refuses it anyway), so
 *   `![alt](url)` shows as text;
 * - no linkify, no typographer: what is written is what is shown;
 * - the invisible characters that reorder or hide text are made visible first, as everywhere.
 *
 * Only `ui` loads this module (through src/commands/_ui-server.ts): no hook or other command does
 * (test/architecture.test.ts).
 */
import MarkdownItCallable, { type MarkdownIt } from "markdown-it";
import { type Html, raw, visible } from "../html.ts";

const SAFE_LINK = /^(?:https?:|mailto:)/i;

function makeRenderer(): MarkdownIt {
  const md = new MarkdownItCallable({ html: false, linkify: false, typographer: false });
  md.disable("image");
  md.validateLink = (url) => SAFE_LINK.test(url.trim());
  const open = md.renderer.rules.link_open;
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    tokens[idx]!.attrSet("rel", "noopener noreferrer nofollow");
    return open ? open(tokens, idx, options, env, self) : self.renderToken(tokens, idx, options);
  };
  return md;
}

let renderer: MarkdownIt | null = null;

/** `text` as HTML: Markdown rendered with nothing of the text trusted. */
export function markdown(text: string): Html {
  renderer ??= makeRenderer();
  return raw(renderer.render(visible(text)));
}
