import { describe, expect, it } from 'vitest';
import { fileNameFrom, importContentType } from './data';

describe('fileNameFrom', () => {
  it('reads quoted, bare and RFC 5987 names', () => {
    expect(fileNameFrom('attachment; filename="pillbox-export-2026-11-23.json"')).toBe('pillbox-export-2026-11-23.json');
    expect(fileNameFrom('attachment; filename=pillbox-history-2026-11-23.csv')).toBe('pillbox-history-2026-11-23.csv');
    expect(fileNameFrom(`attachment; filename="x.json"; filename*=UTF-8''r%C3%A9sum%C3%A9.json`)).toBe('résumé.json');
    expect(fileNameFrom('attachment; filename="say \\"hi\\".json"')).toBe('say "hi".json');
  });

  it('is null when there is no name', () => {
    expect(fileNameFrom(null)).toBeNull();
    expect(fileNameFrom('attachment')).toBeNull();
    expect(fileNameFrom('attachment; filename=""')).toBeNull();
  });
});

describe('importContentType', () => {
  it('sends CSV as text/csv and everything else as the JSON export', () => {
    expect(importContentType(new File([''], 'log.CSV'))).toBe('text/csv');
    expect(importContentType(new File([''], 'export', { type: 'text/csv' }))).toBe('text/csv');
    expect(importContentType(new File([''], 'pillbox-export.json', { type: 'application/json' }))).toBe(
      'application/json',
    );
    expect(importContentType(new File([''], 'backup'))).toBe('application/json');
  });
});
