import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { disabledState } from '../../../test/disabledReason';
import { deferred, jsonResponse, requestUrl, sentJson, type Route } from '../../../test/fetchMock';
import { fail, medsServer, ok, requestsTo, signInForMeds } from '../../../test/medications';
import { renderApp } from '../../../test/renderApp';

const SETTINGS = {
  language: 'en',
  dateFormat: 'MM/dd/yyyy',
  timeFormat: '12h',
  theme: 'system',
  timezone: 'UTC',
  defaultReminderTime: '09:00',
  autoBackup: true,
  dataRetention: 0,
};

const BACKUPS = [
  { name: 'pillbox-export-2026-11-23.json', size: 2048, created_at: '2026-11-23T03:00:00Z' },
  { name: 'pillbox-export-2026-11-22.json', size: 1900, created_at: '2026-11-22T03:00:00Z' },
];

/** A file answer like the server's export and backup downloads. */
function fileResponse(body: string, type: string, fileName: string): Response {
  return new Response(body, {
    status: 200,
    headers: { 'Content-Type': type, 'Content-Disposition': `attachment; filename="${fileName}"` },
  });
}

/** The files the page handed to the browser to save: name and content. */
interface Saved {
  name: string;
  blob: Blob;
}

let saved: Saved[] = [];

beforeEach(() => {
  saved = [];
  const blobs = new Map<string, Blob>();
  let next = 0;
  vi.stubGlobal('URL', Object.assign(URL, {
    createObjectURL: vi.fn((blob: Blob) => {
      next += 1;
      const url = `blob:http://localhost/${next}`;
      blobs.set(url, blob);
      return url;
    }),
    revokeObjectURL: vi.fn(),
  }));
  // jsdom cannot navigate to a blob: URL; record what a click would have saved instead.
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    const blob = blobs.get(this.href);
    if (blob) saved.push({ name: this.download, blob });
  });
});

afterEach(() => {
  vi.useRealTimers();
});

function server(routes: Record<string, Route> = {}) {
  return medsServer({
    'GET /api/settings': () => ok(SETTINGS),
    'GET /api/backups': () => ok(BACKUPS),
    ...routes,
  });
}

function authOf(init: RequestInit | undefined): string | undefined {
  return (init?.headers as Record<string, string> | undefined)?.Authorization;
}

async function openData() {
  signInForMeds();
  renderApp('/settings?section=data');
  return screen.findByRole('heading', { name: 'Data Management', level: 2 });
}

describe('Data Management: export', () => {
  it('downloads the JSON export under the server’s file name and says so', async () => {
    const exported = JSON.stringify({ version: '1.0.0', medications: [{ id: 3, name: 'Aspirin' }], history: [] });
    const fetchMock = server({
      'GET /api/export': () => fileResponse(exported, 'application/json', 'pillbox-export-2026-11-23.json'),
    });
    await openData();
    await userEvent.click(screen.getByRole('button', { name: 'Export Data' }));

    expect(await screen.findByText('Data exported successfully')).toBeTruthy();
    expect(saved.map((file) => file.name)).toEqual(['pillbox-export-2026-11-23.json']);
    expect(await saved[0]?.blob.text()).toBe(exported);
    const [call] = requestsTo(fetchMock, 'GET', '/api/export');
    expect(requestUrl(call?.[0] ?? '')).toBe('/api/export');
    expect(authOf(call?.[1])).toBe('Bearer refreshed-token');
  });

  it('says "Failed to export data" and saves nothing when the server fails', async () => {
    server({ 'GET /api/export': () => fail('Internal server error', 500) });
    await openData();
    await userEvent.click(screen.getByRole('button', { name: 'Export Data' }));

    expect((await screen.findByRole('alert')).textContent).toBe('Failed to export data');
    expect(screen.queryByText('Data exported successfully')).toBeNull();
    expect(saved).toEqual([]);
  });

  it('says why the other export waits while one is prepared', async () => {
    const prepared = deferred<Response>();
    server({ 'GET /api/export': () => prepared.promise });
    await openData();
    await userEvent.click(screen.getByRole('button', { name: 'Export Data' }));
    const why = 'Wait until the export being prepared is ready.';
    expect(disabledState(screen.getByRole('button', { name: 'Export history as CSV' }))).toEqual({
      disabled: true,
      reason: why,
      title: why,
    });
    // The one being prepared says so on itself.
    expect(disabledState(screen.getByRole('button', { name: 'Preparing...' }))).toEqual({
      disabled: true,
      reason: null,
      title: null,
    });
    prepared.resolve(fileResponse('{}', 'application/json', 'pillbox-export-2026-11-23.json'));
    expect(await screen.findByText('Data exported successfully')).toBeTruthy();
    expect(disabledState(screen.getByRole('button', { name: 'Export history as CSV' }))).toEqual({
      disabled: false,
      reason: null,
      title: null,
    });
  });

  it('downloads the history as CSV', async () => {
    const csv = 'date,time,medication,quantity,unit,status,note,taken_at\n2026-11-20,08:00,Aspirin,100,mg,taken,,2026-11-20T08:00:00Z\n';
    const fetchMock = server({
      'GET /api/export': () => fileResponse(csv, 'text/csv; charset=utf-8', 'pillbox-history-2026-11-23.csv'),
    });
    await openData();
    await userEvent.click(screen.getByRole('button', { name: 'Export history as CSV' }));

    expect(await screen.findByText('Data exported successfully')).toBeTruthy();
    expect(saved.map((file) => file.name)).toEqual(['pillbox-history-2026-11-23.csv']);
    expect(await saved[0]?.blob.text()).toBe(csv);
    expect(requestUrl(requestsTo(fetchMock, 'GET', '/api/export')[0]?.[0] ?? '')).toBe('/api/export?format=csv');
  });

  it('downloads the record as a FHIR bundle for a health record system', async () => {
    const bundle = '{"resourceType":"Bundle","type":"collection","entry":[]}';
    const fetchMock = server({
      'GET /api/export': () => fileResponse(bundle, 'application/fhir+json', 'pillbox-fhir-2026-11-23.json'),
    });
    await openData();
    await userEvent.click(screen.getByRole('button', { name: 'Export as FHIR (for health records)' }));

    expect(await screen.findByText('Data exported successfully')).toBeTruthy();
    expect(saved.map((file) => file.name)).toEqual(['pillbox-fhir-2026-11-23.json']);
    expect(await saved[0]?.blob.text()).toBe(bundle);
    expect(requestUrl(requestsTo(fetchMock, 'GET', '/api/export')[0]?.[0] ?? '')).toBe('/api/export?format=fhir');
  });

  it('links to the doctor report', async () => {
    server({ 'GET /api/report': () => ok({ from: '2026-10-25', to: '2026-11-23', medications: [], missed: [] }) });
    await openData();
    await userEvent.click(screen.getByRole('link', { name: 'Open the doctor report' }));
    expect(screen.getByTestId('location').textContent).toBe('/report');
  });
});

const DRY_RUN = {
  dry_run: true,
  medications: { added: 2, skipped: 1 },
  schedules: { added: 2 },
  history: { added: 15, skipped: 3 },
  unreadable: [],
  unknown_columns: [],
  notices: [],
};

/** The address of the request being answered: the mocked fetch's latest call. */
function currentUrl(): URL {
  const call = vi.mocked(fetch).mock.calls.at(-1);
  return new URL(call ? requestUrl(call[0]) : '/', 'http://localhost');
}

/** POST /api/import answering the dry run and the real import like the server. */
const importRoute: Route = () => {
  const dryRun = currentUrl().searchParams.get('dry_run') === 'true';
  return jsonResponse({
    success: true,
    message: dryRun ? 'Nothing was changed' : 'Data imported',
    data: { ...DRY_RUN, dry_run: dryRun },
  });
};

function exportFile(name = 'pillbox-export-2026-11-20.json', type = 'application/json') {
  return new File(['{"version":"1.0.0","medications":[],"history":[]}'], name, { type });
}

function importCalls(fetchMock: ReturnType<typeof server>) {
  return requestsTo(fetchMock, 'POST', '/api/import').map(([input, init]) => ({
    url: requestUrl(input),
    body: init?.body,
    type: (init?.headers as Record<string, string> | undefined)?.['Content-Type'],
  }));
}

function countsOf(table: HTMLElement): string[][] {
  return within(table)
    .getAllByRole('row')
    .map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent));
}

describe('Data Management: import', () => {
  it('shows the dry run’s counts, imports only after Confirm, then says what was added', async () => {
    const fetchMock = server({ 'POST /api/import': importRoute });
    await openData();
    const file = exportFile();
    await userEvent.upload(screen.getByLabelText('File to import'), file);

    const dialog = await screen.findByRole('dialog', { name: 'Import this file?' });
    expect(within(dialog).getByText('Importing pillbox-export-2026-11-20.json adds:')).toBeTruthy();
    expect(countsOf(within(dialog).getByTestId('import-counts'))).toEqual([
      ['Records', 'To add', 'Already here (skipped)'],
      ['Medications', '2', '1'],
      ['Schedules', '2', '–'],
      ['History entries', '15', '3'],
    ]);
    expect(importCalls(fetchMock)).toEqual([{ url: '/api/import?dry_run=true', body: file, type: 'application/json' }]);

    await userEvent.click(within(dialog).getByRole('button', { name: 'Import' }));
    expect(await screen.findByText('Import complete.')).toBeTruthy();
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(importCalls(fetchMock)[1]).toEqual({ url: '/api/import', body: file, type: 'application/json' });
    expect(countsOf(screen.getByTestId('import-counts'))[0]).toEqual(['Records', 'Added', 'Already here (skipped)']);
    expect(countsOf(screen.getByTestId('import-counts'))[3]).toEqual(['History entries', '15', '3']);
  });

  it('counts the prescriptions and stock batches a file brings, when it has any', async () => {
    const withRecords = { ...DRY_RUN, prescriptions: { added: 1, skipped: 0 }, batches: { added: 3, skipped: 2 } };
    server({ 'POST /api/import': () => ok(withRecords) });
    await openData();
    await userEvent.upload(screen.getByLabelText('File to import'), exportFile());
    const dialog = await screen.findByRole('dialog', { name: 'Import this file?' });
    expect(countsOf(within(dialog).getByTestId('import-counts'))).toEqual([
      ['Records', 'To add', 'Already here (skipped)'],
      ['Medications', '2', '1'],
      ['Schedules', '2', '–'],
      ['Prescriptions', '1', '0'],
      ['Stock batches', '3', '2'],
      ['History entries', '15', '3'],
    ]);
  });

  it('reads a MedTimer file, lists the rows it cannot read, and imports the rest only when told', async () => {
    const withUnreadable = {
      ...DRY_RUN,
      unreadable: [{ line: 5, reason: 'the taken time \'yesterday\' is not an ISO 8601 time' }],
      unknown_columns: ['Ort'],
      notices: ["MedTimer's file says only which doses were taken: the others are imported as missed"],
    };
    const fetchMock = server({
      'POST /api/import': () => {
        const dryRun = currentUrl().searchParams.get('dry_run') === 'true';
        return jsonResponse({ success: true, message: 'ok', data: { ...withUnreadable, dry_run: dryRun } });
      },
    });
    await openData();
    await userEvent.selectOptions(screen.getByLabelText('From'), 'MedTimer (events or medicines CSV)');
    await userEvent.upload(screen.getByLabelText('File to import'), exportFile('MedTimer_Events.csv', 'text/csv'));

    const dialog = await screen.findByRole('dialog', { name: 'Import this file?' });
    expect(within(dialog).getByRole('alert').textContent).toContain('1 row cannot be read and will be left out:');
    expect(within(dialog).getByText("Line 5: the taken time 'yesterday' is not an ISO 8601 time")).toBeTruthy();
    expect(within(dialog).getByText('Columns left out (Pillbox does not read them): Ort')).toBeTruthy();
    expect(within(dialog).getByText(withUnreadable.notices[0] ?? '')).toBeTruthy();
    expect(importCalls(fetchMock).map((call) => call.url)).toEqual(['/api/import?dry_run=true&source=medtimer']);

    await userEvent.click(within(dialog).getByRole('button', { name: 'Import without these rows' }));
    expect(await screen.findByText('Import complete.')).toBeTruthy();
    expect(importCalls(fetchMock).map((call) => call.url)).toEqual([
      '/api/import?dry_run=true&source=medtimer',
      '/api/import?source=medtimer&skip_unreadable=true',
    ]);
  });

  it('sends a history CSV as text/csv', async () => {
    const fetchMock = server({ 'POST /api/import': importRoute });
    await openData();
    await userEvent.upload(screen.getByLabelText('File to import'), exportFile('my-log.csv', ''));
    await screen.findByRole('dialog', { name: 'Import this file?' });
    expect(importCalls(fetchMock)[0]?.type).toBe('text/csv');
  });

  it('Cancel leaves everything as it was', async () => {
    const fetchMock = server({ 'POST /api/import': importRoute });
    await openData();
    await userEvent.upload(screen.getByLabelText('File to import'), exportFile());
    const dialog = await screen.findByRole('dialog', { name: 'Import this file?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));

    expect(screen.queryByRole('dialog')).toBeNull();
    expect(importCalls(fetchMock).map((call) => call.url)).toEqual(['/api/import?dry_run=true']);
    expect(screen.queryByText('Import complete.')).toBeNull();
    expect(screen.getByLabelText<HTMLInputElement>('File to import').value).toBe('');
  });

  it('offers no import when the file adds nothing', async () => {
    server({
      'POST /api/import': () =>
        ok({ ...DRY_RUN, medications: { added: 0, skipped: 3 }, schedules: { added: 0 }, history: { added: 0, skipped: 18 } }),
    });
    await openData();
    await userEvent.upload(screen.getByLabelText('File to import'), exportFile());
    const dialog = await screen.findByRole('dialog', { name: 'Import this file?' });
    expect(within(dialog).getByText('Nothing to import: everything in this file is already here.')).toBeTruthy();
    expect(within(dialog).queryByRole('button', { name: 'Import' })).toBeNull();
  });

  it('shows the server’s reason for a refused file and asks nothing', async () => {
    const fetchMock = server({
      'POST /api/import': () => fail('History entry 4 names medication 9, which is not in the file', 400, 'import_invalid'),
    });
    await openData();
    await userEvent.upload(screen.getByLabelText('File to import'), exportFile());

    expect((await screen.findByRole('alert')).textContent).toBe(
      'This file cannot be imported: History entry 4 names medication 9, which is not in the file',
    );
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(importCalls(fetchMock)).toHaveLength(1);
  });

  it('says a file is too large when the server answers 413, and before sending one over 64 MiB', async () => {
    const fetchMock = server({
      'POST /api/import': () => new Response('length limit exceeded', { status: 413 }),
    });
    await openData();
    await userEvent.upload(screen.getByLabelText('File to import'), exportFile());
    expect((await screen.findByRole('alert')).textContent).toBe(
      'This file is larger than 64 MiB, the most an import can take.',
    );

    const huge = exportFile('huge.json');
    Object.defineProperty(huge, 'size', { value: 65 * 1024 * 1024 });
    await userEvent.upload(screen.getByLabelText('File to import'), huge);
    expect(screen.getByRole('alert').textContent).toBe('This file is larger than 64 MiB, the most an import can take.');
    expect(importCalls(fetchMock)).toHaveLength(1);
  });
});

describe('Data Management: retention', () => {
  function retentionServer(entries: number) {
    let stored = 0;
    const fetchMock = server({
      'GET /api/settings': () => ok({ ...SETTINGS, dataRetention: stored }),
      'GET /api/medications/history/retention': () => {
        const days = Number(currentUrl().searchParams.get('days'));
        return ok({ days, cutoff: '2026-08-25T12:00:00Z', entries });
      },
      'PUT /api/settings': (init) => {
        stored = (sentJson(init) as { dataRetention: number }).dataRetention;
        return ok({ ...SETTINGS, dataRetention: stored });
      },
    });
    return fetchMock;
  }

  it('shows the notice that deleted data cannot be recovered, and Forever first', async () => {
    server();
    await openData();
    const select = await screen.findByLabelText<HTMLSelectElement>('Keep dose history for');
    expect(select.value).toBe('0');
    expect([...select.options].map((option) => option.textContent)).toEqual([
      'Forever',
      '30 days',
      '90 days',
      '1 year',
      '2 years',
    ]);
    expect(screen.getByTestId('retention-notice').textContent).toContain('Deleted data cannot be recovered.');
  });

  it('asks with the number of entries it deletes; Cancel keeps the old value', async () => {
    const fetchMock = retentionServer(12);
    await openData();
    const select = await screen.findByLabelText<HTMLSelectElement>('Keep dose history for');
    await userEvent.selectOptions(select, '90');

    const dialog = await screen.findByRole('dialog', { name: 'Keep only 90 days of history?' });
    expect(within(dialog).getByTestId('retention-count').textContent).toBe(
      'This deletes 12 history entries now: every dose logged before 08/25/2026.',
    );
    expect(requestUrl(requestsTo(fetchMock, 'GET', '/api/medications/history/retention')[0]?.[0] ?? '')).toBe(
      '/api/medications/history/retention?days=90',
    );
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));

    expect(screen.queryByRole('dialog')).toBeNull();
    expect(select.value).toBe('0');
    expect(requestsTo(fetchMock, 'PUT', '/api/settings')).toEqual([]);
  });

  it('saves the period once confirmed', async () => {
    const fetchMock = retentionServer(1);
    await openData();
    const select = await screen.findByLabelText<HTMLSelectElement>('Keep dose history for');
    await userEvent.selectOptions(select, '365');
    const dialog = await screen.findByRole('dialog', { name: 'Keep only 1 year of history?' });
    expect(within(dialog).getByTestId('retention-count').textContent).toBe(
      'This deletes 1 history entry now: the one logged before 08/25/2026.',
    );
    await userEvent.click(within(dialog).getByRole('button', { name: 'Keep only 1 year' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(select.value).toBe('365');
    expect(screen.getByText('App settings updated successfully')).toBeTruthy();
    expect(requestsTo(fetchMock, 'PUT', '/api/settings').map(([, init]) => sentJson(init))).toEqual([
      { dataRetention: 365 },
    ]);
  });

  it('says when nothing is old enough to go yet', async () => {
    retentionServer(0);
    await openData();
    await userEvent.selectOptions(await screen.findByLabelText('Keep dose history for'), '30');
    const dialog = await screen.findByRole('dialog', { name: 'Keep only 30 days of history?' });
    expect(within(dialog).getByTestId('retention-count').textContent).toBe(
      'No history entry is that old yet, so nothing is deleted now.',
    );
  });

  it('goes back to Forever without asking', async () => {
    const fetchMock = server({
      'GET /api/settings': () => ok({ ...SETTINGS, dataRetention: 90 }),
      'PUT /api/settings': (init) => ok({ ...SETTINGS, ...(sentJson(init) as object) }),
    });
    await openData();
    const select = await screen.findByLabelText<HTMLSelectElement>('Keep dose history for');
    await waitFor(() => expect(select.value).toBe('90'));
    await userEvent.selectOptions(select, '0');

    await waitFor(() => expect(select.value).toBe('0'));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(requestsTo(fetchMock, 'GET', '/api/medications/history/retention')).toEqual([]);
    expect(requestsTo(fetchMock, 'PUT', '/api/settings').map(([, init]) => sentJson(init))).toEqual([
      { dataRetention: 0 },
    ]);
  });
});

describe('Data Management: backups', () => {
  it('lists the kept backups and downloads one', async () => {
    const fetchMock = server({
      'GET /api/backups/pillbox-export-2026-11-22.json': () =>
        fileResponse('{"version":"1.0.0"}', 'application/json', 'pillbox-export-2026-11-22.json'),
    });
    await openData();
    const list = await screen.findByTestId('backup-list');
    const items = within(list).getAllByRole('listitem');
    expect(items.map((item) => item.querySelector('.backup-name')?.textContent)).toEqual([
      'pillbox-export-2026-11-23.json',
      'pillbox-export-2026-11-22.json',
    ]);
    expect(items[0]?.textContent).toContain('11/23/2026 3:00 AM · 2 kB');

    await userEvent.click(screen.getByRole('button', { name: 'Download pillbox-export-2026-11-22.json' }));
    await waitFor(() => expect(saved.map((file) => file.name)).toEqual(['pillbox-export-2026-11-22.json']));
    expect(await saved[0]?.blob.text()).toBe('{"version":"1.0.0"}');
    expect(authOf(requestsTo(fetchMock, 'GET', '/api/backups/pillbox-export-2026-11-22.json')[0]?.[1])).toBe(
      'Bearer refreshed-token',
    );
  });

  it('says which download the backup buttons wait for', async () => {
    const file = deferred<Response>();
    server({ 'GET /api/backups/pillbox-export-2026-11-22.json': () => file.promise });
    await openData();
    await screen.findByTestId('backup-list');
    await userEvent.click(screen.getByRole('button', { name: 'Download pillbox-export-2026-11-22.json' }));
    const why = 'Downloading pillbox-export-2026-11-22.json... The other backups can be downloaded once it is saved.';
    for (const name of ['pillbox-export-2026-11-23.json', 'pillbox-export-2026-11-22.json']) {
      expect(disabledState(screen.getByRole('button', { name: `Download ${name}` }))).toEqual({
        disabled: true,
        reason: why,
        title: why,
      });
    }
    file.resolve(fileResponse('{}', 'application/json', 'pillbox-export-2026-11-22.json'));
    await waitFor(() => expect(saved.map((file) => file.name)).toEqual(['pillbox-export-2026-11-22.json']));
    expect(disabledState(screen.getByRole('button', { name: 'Download pillbox-export-2026-11-23.json' }))).toEqual({
      disabled: false,
      reason: null,
      title: null,
    });
  });

  it('says when there is no backup yet, and when backups are off', async () => {
    server({ 'GET /api/backups': () => ok([]), 'GET /api/settings': () => ok({ ...SETTINGS, autoBackup: false }) });
    await openData();
    expect(await screen.findByText('No backup yet. The first one is made within a day.')).toBeTruthy();
    expect(
      await screen.findByText('Automatic backups are off. Turn them on in Settings → Medications.'),
    ).toBeTruthy();
  });
});

describe('Settings → Medications', () => {
  async function openMedications() {
    signInForMeds();
    renderApp('/settings?section=medications');
    await screen.findByRole('heading', { name: 'Medications', level: 2 });
  }

  it('saves the default reminder time', async () => {
    const fetchMock = server({
      'PUT /api/settings': (init) => ok({ ...SETTINGS, ...(sentJson(init) as object) }),
    });
    await openMedications();
    const input = await screen.findByLabelText<HTMLInputElement>('Default reminder time');
    expect(input.value).toBe('09:00');
    await userEvent.clear(input);
    await userEvent.type(input, '07:30');
    await userEvent.click(screen.getByRole('button', { name: 'Save reminder time' }));

    expect(await screen.findByText('App settings updated successfully')).toBeTruthy();
    expect(requestsTo(fetchMock, 'PUT', '/api/settings').map(([, init]) => sentJson(init))).toEqual([
      { defaultReminderTime: '07:30' },
    ]);
    expect(input.value).toBe('07:30');
  });

  it('turns daily backups off and on; their list shows only while on', async () => {
    const fetchMock = server({
      'PUT /api/settings': (init) => ok({ ...SETTINGS, ...(sentJson(init) as object) }),
    });
    await openMedications();
    const toggle = await screen.findByRole('switch', { name: /Automatically backup your data daily/ });
    expect((toggle as HTMLInputElement).checked).toBe(true);
    expect(await screen.findByTestId('backup-list')).toBeTruthy();

    await userEvent.click(toggle);
    await waitFor(() => expect(screen.queryByTestId('backup-list')).toBeNull());
    expect((toggle as HTMLInputElement).checked).toBe(false);
    await userEvent.click(toggle);
    expect(await screen.findByTestId('backup-list')).toBeTruthy();
    expect(requestsTo(fetchMock, 'PUT', '/api/settings').map(([, init]) => sentJson(init))).toEqual([
      { autoBackup: false },
      { autoBackup: true },
    ]);
  });

  it('keeps the toggle as it was when saving fails', async () => {
    server({ 'PUT /api/settings': () => fail('Internal server error', 500) });
    await openMedications();
    const toggle = await screen.findByRole('switch', { name: /Automatically backup your data daily/ });
    await userEvent.click(toggle);
    expect(await screen.findByRole('alert')).toBeTruthy();
    expect((toggle as HTMLInputElement).checked).toBe(true);
  });

  it('lets the success message go after 3 seconds', async () => {
    server({ 'PUT /api/settings': (init) => ok({ ...SETTINGS, ...(sentJson(init) as object) }) });
    await openMedications();
    const toggle = await screen.findByRole('switch', { name: /Automatically backup your data daily/ });
    vi.useFakeTimers({ shouldAdvanceTime: true });
    await userEvent.click(toggle);
    expect(await screen.findByText('App settings updated successfully')).toBeTruthy();
    act(() => {
      vi.advanceTimersByTime(3000);
    });
    expect(screen.queryByText('App settings updated successfully')).toBeNull();
  });
});
