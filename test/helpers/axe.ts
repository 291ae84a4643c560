import { source } from 'axe-core';
import type { Page } from 'playwright-core';

interface AxeResults {
  violations: { id: string; impact?: string | null; nodes: { target: unknown[] }[] }[];
}

/**
 * The serious and critical axe-core violations of the page as it is now, each as "rule: targets". The page
 * must be in a context made with `bypassCSP: true`: the pages allow no script, axe's included.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: source });
  const results = await page.evaluate(() => (globalThis as unknown as { axe: { run(): Promise<AxeResults> } }).axe.run());
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}
