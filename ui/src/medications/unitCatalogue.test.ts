import { beforeEach, describe, expect, it, vi } from 'vitest';
import { parseUnitList } from '../api/units';
import { jsonResponse, mockFetch } from '../test/fetchMock';
import units from '../test/fixtures/units.json';

/** Fresh copies of the store and its loader, as at app start (the test setup fills the shared store). */
async function freshCatalogue() {
  vi.resetModules();
  const [{ unitCatalogue }, { loadUnitCatalogue }] = await Promise.all([
    import('./unitCatalogue'),
    import('../queries/units'),
  ]);
  return { unitCatalogue, loadUnitCatalogue };
}

describe('unit catalogue from GET /api/units', () => {
  beforeEach(() => localStorage.clear());

  it("reads the server's answer, every field checked", () => {
    const parsed = parseUnitList(units.data);
    expect(parsed?.map((u) => u.symbol)).toEqual([
      'mg', 'μg', 'g', 'kg', 'ml', 'l', 'μl', 'tablets', 'capsules', 'pills', 'units', 'drops', '%', 'mg/ml', 'μg/ml', 'g/l',
    ]);
    expect(parsed?.find((u) => u.symbol === 'kg')?.exponent).toBe(6);
    // One bad entry and the answer is not taken at all.
    expect(parseUnitList([...units.data, { symbol: 'x', category: 'weight' }])).toBeNull();
    expect(parseUnitList([{ ...units.data[0], category: 'length' }])).toBeNull();
    expect(parseUnitList([])).toBeNull();
  });

  it('is fetched once, kept for an offline start, and knows no units before that', async () => {
    const { loadUnitCatalogue, unitCatalogue } = await freshCatalogue();
    const fetchMock = mockFetch({});
    expect(unitCatalogue()).toEqual([]);
    await Promise.all([loadUnitCatalogue(), loadUnitCatalogue()]);
    await loadUnitCatalogue();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(unitCatalogue()).toHaveLength(16);

    const next = await freshCatalogue();
    expect(next.unitCatalogue()).toHaveLength(16);
  });

  it('tries again after a failed fetch', async () => {
    const { loadUnitCatalogue, unitCatalogue } = await freshCatalogue();
    let fail = true;
    mockFetch({
      'GET /api/units': () =>
        fail ? jsonResponse({ success: false, message: 'Internal server error', code: 'internal_error' }, 500) : jsonResponse(units),
    });
    await expect(loadUnitCatalogue()).rejects.toThrow('Internal server error');
    expect(unitCatalogue()).toEqual([]);
    fail = false;
    await expect(loadUnitCatalogue()).resolves.toHaveLength(16);
  });
});
