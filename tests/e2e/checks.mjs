// Checks more than one spec makes, comparing a page with the command line.

import { expect } from './fixtures.mjs';
import { stampedeJson } from './helpers.mjs';

/** The summary table's cells: lane slug → key → the number the cell holds. */
export const pageSummaries = (page) =>
  page.$$eval('td[data-summary]', (cells) => {
    const lanes = {};
    for (const cell of cells) {
      (lanes[cell.dataset.lane] ??= {})[cell.dataset.summary] = Number(cell.dataset.value);
    }
    return lanes;
  });

/** Compares every summary cell on the page with `stampede run` on the same query. */
export async function expectCoreSummaries(page, query, what) {
  const expected = Object.fromEntries(stampedeJson(['run', query]).lanes.map((lane) => [lane.slug, lane.run.summary]));
  const shown = await pageSummaries(page);
  expect(Object.keys(shown), `${what}: lanes`).toEqual(Object.keys(expected));
  for (const [lane, cells] of Object.entries(shown)) {
    for (const [key, value] of Object.entries(cells)) {
      if (!(key in expected[lane])) continue; // figures of the table only, such as peak workers
      const want = expected[lane][key];
      expect(Math.abs(value - want), `${what}: ${lane} ${key} shows ${value}, stampede run gives ${want}`).toBeLessThanOrEqual(
        1e-9 * Math.max(1, Math.abs(want)),
      );
    }
  }
}

