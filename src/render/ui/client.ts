/**
 * The web view's only script (docs/ui.md), bundled by Bun.build when `ui` starts and served as
 * /assets/app.js: the copy buttons of the suggested commands, `/` to focus the search box, and on
 * a chain `j`/`k` to the next or previous turn, `G` to the newest, `o` to open or close the
 * calls of the turn in view. The pages work without it. It reads nothing from the network and
 * writes nothing.
 */
interface El {
  id: string;
  open?: boolean;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { top: number };
  scrollIntoView(opts?: { block?: string }): void;
  querySelectorAll(sel: string): ArrayLike<El>;
  click(): void;
  addEventListener(
    type: string,
    fn: (e: {
      key?: string;
      ctrlKey?: boolean;
      metaKey?: boolean;
      altKey?: boolean;
      preventDefault(): void;
      target?: unknown;
    }) => void,
  ): void;
  focus(opts?: { preventScroll?: boolean }): void;
  textContent: string | null;
}
interface Globals {
  document: { querySelectorAll(sel: string): ArrayLike<El>; querySelector(sel: string): El | null } & El;
  navigator: { clipboard?: { writeText(text: string): Promise<void> } };
}

const g = globalThis as unknown as Globals;

const buttons = g.document.querySelectorAll("button.copy");
for (let i = 0; i < buttons.length; i++) {
  const b = buttons[i]!;
  b.addEventListener("click", () => {
    const text = b.getAttribute("data-copy") ?? "";
    const done = () => {
      b.textContent = "copied";
    };
    g.navigator.clipboard?.writeText(text).then(done, () => {
      b.textContent = "select and copy";
    });
  });
}

const turns = () => Array.from(g.document.querySelectorAll("article.turn"));

/** The turn at the top of the view: the last one whose top is above the middle of the window. */
function current(list: El[]): number {
  let at = -1;
  for (let i = 0; i < list.length; i++) if (list[i]!.getBoundingClientRect().top < 120) at = i;
  return at;
}

function go(step: number): void {
  const list = turns();
  if (list.length === 0) return;
  const i = Math.min(list.length - 1, Math.max(0, current(list) + step));
  list[i]!.scrollIntoView({ block: "start" });
  list[i]!.focus({ preventScroll: true });
}

function toggleCalls(): void {
  const list = turns();
  const t = list[Math.max(0, current(list))];
  if (!t) return;
  const folds = Array.from(t.querySelectorAll("details.call, details.note"));
  const open = !folds.some((d) => d.open);
  for (const d of folds) d.open = open;
}

const KEYS: Record<string, () => void> = {
  j: () => go(1),
  k: () => go(-1),
  G: () => g.document.querySelector("a.jump")?.click(),
  o: toggleCalls,
};

g.document.addEventListener("keydown", (e) => {
  const tag = (e.target as { tagName?: string } | undefined)?.tagName;
  // Typing in a field, and the browser's own shortcuts (Ctrl-K, ⌘-G…), are left alone.
  if (tag === "INPUT" || tag === "TEXTAREA" || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === "/") {
    e.preventDefault();
    g.document.querySelector("input[type=search]")?.focus();
    return;
  }
  const act = e.key ? KEYS[e.key] : undefined;
  if (act) {
    e.preventDefault();
    act();
  }
});
