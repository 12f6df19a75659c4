/** Paging of the web view's long lists (docs/ui.md): a page number in, LIMIT/OFFSET out. */

export const PAGE_SIZE = 50;
/** Past this page a list is not paged further (a deep OFFSET costs a walk of every row before it). */
export const MAX_PAGE = 10_000;

export interface Page {
  /** 1-based. */
  number: number;
  limit: number;
  offset: number;
}

/** The page a `?page=` value asks for: anything that is not a whole number from 1 is page 1. */
export function parsePage(text: string | null | undefined, size = PAGE_SIZE): Page {
  const n = text !== null && text !== undefined && /^\d{1,6}$/.test(text) ? Number(text) : 1;
  const number = Math.min(Math.max(1, n), MAX_PAGE);
  return { number, limit: size, offset: (number - 1) * size };
}

/**
 * A page's neighbours: `prev` when it is not the first, `next` when `fetched` (a query asks for
 * limit + 1 rows) shows that more follow.
 */
export function pageLinks(page: Page, fetched: number): { prev: number | null; next: number | null } {
  return {
    prev: page.number > 1 ? page.number - 1 : null,
    next: fetched > page.limit && page.number < MAX_PAGE ? page.number + 1 : null,
  };
}
