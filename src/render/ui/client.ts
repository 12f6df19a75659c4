/**
 * The web view's only script (docs/ui.md), bundled by Bun.build when `ui` starts and served as
 * /assets/app.js: the copy buttons of the suggested commands, and `/` to focus the search box.
 * The pages work without it. It reads nothing from the network and writes nothing.
 */
interface El {
  getAttribute(name: string): string | null;
  addEventListener(
    type: string,
    fn: (e: { key?: string; preventDefault(): void; target?: unknown }) => void,
  ): void;
  focus(): void;
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

g.document.addEventListener("keydown", (e) => {
  const tag = (e.target as { tagName?: string } | undefined)?.tagName;
  if (e.key === "/" && tag !== "INPUT") {
    e.preventDefault();
    g.document.querySelector("input[type=search]")?.focus();
  }
});
