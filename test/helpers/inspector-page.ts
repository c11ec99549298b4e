/**
 * Reading the inspector page in the browser tests. The page code is passed as functions (Playwright runs them
 * through the DevTools protocol; a string would be eval'd, which the page's Content-Security-Policy forbids), and
 * they reach the DOM through `globalThis` (the tests are compiled without the DOM library).
 */
import type { Page } from 'playwright-core';

interface Node {
  textContent: string | null;
  children: ArrayLike<Node>;
  getAttribute(name: string): string | null;
}
interface DocumentLike {
  querySelectorAll(selector: string): ArrayLike<Node>;
  querySelector(selector: string): Node | null;
}

/** The text of each cell of the rows `selector` matches, row by row; with `withId`, each row's data-id first. */
export function cells(page: Page, selector: string, withId = false): Promise<string[][]> {
  return page.evaluate(
    ({ selector, withId }) =>
      Array.from((globalThis as unknown as { document: DocumentLike }).document.querySelectorAll(selector)).map(
        (row) => [
          ...(withId ? [row.getAttribute('data-id') ?? ''] : []),
          ...Array.from(row.children).map((cell) => cell.textContent ?? ''),
        ],
      ),
    { selector, withId },
  );
}

/** Waits until exactly `count` elements (or at least, with `atLeast`) match `selector`. */
export async function waitForCount(page: Page, selector: string, count: number, atLeast = false): Promise<void> {
  await page.waitForFunction(
    ({ selector, count, atLeast }) => {
      const found = (globalThis as unknown as { document: DocumentLike }).document.querySelectorAll(selector).length;
      return atLeast ? found >= count : found === count;
    },
    { selector, count, atLeast },
  );
}

/** Waits until the first element `selector` matches has the text `text` (or, with `not`, any other). */
export async function waitForText(page: Page, selector: string, text: string, not = false): Promise<void> {
  await page.waitForFunction(
    ({ selector, text, not }) => {
      const found = (globalThis as unknown as { document: DocumentLike }).document.querySelector(selector)?.textContent;
      return not ? found !== undefined && found !== text : found === text;
    },
    { selector, text, not },
  );
}
