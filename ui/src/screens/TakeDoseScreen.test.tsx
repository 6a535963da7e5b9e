import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { requestUrl, sentJson, type Route } from '../test/fetchMock';
import { fail, medsServer, ok, requestsTo, signInForMeds } from '../test/medications';
import { renderApp } from '../test/renderApp';
import { formatDateTime } from '../medications/format';
import { DEFAULT_SETTINGS } from '../settings/appSettings';
import { dosageText } from './TakeDoseScreen';
import { advance } from '../test/fakeClock';

const TOKEN = 'tok_123-abc';
const PATH = `/api/notifications/take/${TOKEN}`;

function detailsJson(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: 'Time for Aspirin',
    medication_name: 'Aspirin',
    quantity: 2,
    dosage: null,
    dosage_unit: 'tablets',
    scheduled_time: '2026-11-22T09:00:00Z',
    message: 'With a glass of water',
    logged: null,
    ...overrides,
  };
}

/** The take page on a server that answers the take routes (signed in, so /today opens). */
function openTake(routes: Record<string, Route>, query = '') {
  signInForMeds();
  const fetchMock = medsServer({ 'GET /api/medications': () => ok([]), ...routes });
  renderApp(`/notifications/take/${TOKEN}${query}`);
  return fetchMock;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('dosageText', () => {
  const amount = (quantity: number, unit: string) => `${quantity}|${unit}`;
  it('uses the quantity and unit, else the dosage and unit, else "As prescribed"', () => {
    expect(dosageText({ quantity: 2, dosage: '500 mg', dosage_unit: 'tablets' }, amount, 'As prescribed')).toBe(
      '2|tablets',
    );
    expect(dosageText({ quantity: null, dosage: '500', dosage_unit: 'mg' }, amount, 'As prescribed')).toBe('500 mg');
    expect(dosageText({ quantity: null, dosage: 'one puff', dosage_unit: null }, amount, 'As prescribed')).toBe(
      'one puff',
    );
    expect(dosageText({ quantity: null, dosage: null, dosage_unit: 'mg' }, amount, 'As prescribed')).toBe(
      'As prescribed',
    );
  });
});

describe('Quick dosage logging', () => {
  it('loads the reminder without a session token and shows its details', async () => {
    const fetchMock = openTake({ [`GET ${PATH}`]: () => ok(detailsJson()) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Time for Aspirin' })).toBeTruthy();
    expect(screen.getByTestId('take-medication').textContent).toBe('Aspirin');
    expect(screen.getByTestId('take-dosage').textContent).toBe('2 tablets');
    expect(screen.getByTestId('take-scheduled-time').textContent).toBe(
      formatDateTime('2026-11-22T09:00:00Z', DEFAULT_SETTINGS, 'en'),
    );
    expect(screen.getByTestId('take-message').textContent).toBe('With a glass of water');

    const [load] = requestsTo(fetchMock, 'GET', PATH);
    const headers = new Headers(load?.[1]?.headers);
    expect(headers.get('Authorization')).toBeNull();
  });

  it('says "As prescribed" without an amount, and leaves out a missing message', async () => {
    openTake({
      [`GET ${PATH}`]: () => ok(detailsJson({ quantity: null, dosage: null, dosage_unit: null, message: null })),
    });
    expect((await screen.findByTestId('take-dosage')).textContent).toBe('As prescribed');
    expect(screen.queryByTestId('take-message')).toBeNull();
  });

  it('offers taken (default), skipped and missed; the button follows the choice', async () => {
    openTake({ [`GET ${PATH}`]: () => ok(detailsJson()) });
    const taken = await screen.findByRole('radio', { name: 'Taken' });
    expect((taken as HTMLInputElement).checked).toBe(true);
    expect(screen.getByRole('button', { name: 'Log as Taken' })).toBeTruthy();
    await userEvent.click(screen.getByRole('radio', { name: 'Skipped' }));
    expect(screen.getByRole('button', { name: 'Log as Skipped' })).toBeTruthy();
    await userEvent.click(screen.getByRole('radio', { name: 'Missed' }));
    expect(screen.getByRole('button', { name: 'Log as Missed' })).toBeTruthy();
    expect(screen.getAllByRole('radio')).toHaveLength(3);
  });

  it('logs the chosen status, says what was recorded and when, and stays there', async () => {
    const logged = vi.fn(() => ok({ id: 90, status: 'skipped', taken: '2026-11-22T09:05:00Z' }, 201));
    const fetchMock = openTake({ [`GET ${PATH}`]: () => ok(detailsJson()), [`POST ${PATH}`]: logged });
    await userEvent.click(await screen.findByRole('radio', { name: 'Skipped' }));

    vi.useFakeTimers();
    fireEvent.click(screen.getByRole('button', { name: 'Log as Skipped' }));
    await advance(5);
    expect(logged).toHaveBeenCalledTimes(1);
    const [post] = requestsTo(fetchMock, 'POST', PATH);
    expect(sentJson(post?.[1])).toEqual({ status: 'skipped' });
    expect(new Headers(post?.[1]?.headers).get('Authorization')).toBeNull();
    expect(screen.getByTestId('take-success').textContent).toBe('Medication skipped logged successfully!');
    expect(screen.getByTestId('take-recorded').textContent).toBe(
      `Aspirin (2 tablets) recorded as skipped at ${formatDateTime('2026-11-22T09:05:00Z', DEFAULT_SETTINGS, 'en')}.`,
    );
    expect(screen.getByTestId('take-recorded').closest('[role="status"]')).not.toBeNull();

    await advance(10_000);
    expect(screen.getByTestId('location').textContent).toBe(`/notifications/take/${TOKEN}`);
    // Signed in: Close goes on to Today.
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(screen.getByTestId('location').textContent).toBe('/today');
  });

  it('signed out, speaks the reminder\'s language, says for whom it was recorded, and never leaves for the sign-in page', async () => {
    medsServer({
      [`GET ${PATH}`]: () => ok(detailsJson({ person_name: 'Opa Jo', language: 'de' })),
      [`POST ${PATH}`]: () => ok({ id: 90, status: 'taken', taken: '2026-11-22T09:05:00Z' }, 201),
    });
    renderApp(`/notifications/take/${TOKEN}`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Zeit für Aspirin' })).toBeTruthy();
    const group = screen.getByRole('group', { name: 'Erneut erinnern in' });
    // Each snooze button's name is the text it shows.
    expect(within(group).getAllByRole('button').map((b) => b.getAttribute('aria-label'))).toEqual([null, null, null]);
    expect(within(group).getByRole('button', { name: '10 Min.' })).toBeTruthy();

    vi.useFakeTimers();
    fireEvent.click(screen.getByRole('button', { name: 'Als genommen erfassen' }));
    await advance(5);
    expect(screen.getByTestId('take-success').textContent).toBe('Medikament als genommen erfasst!');
    expect(screen.getByTestId('take-recorded').textContent).toBe(
      `Aspirin (2 Tabletten) für Opa Jo am ${formatDateTime('2026-11-22T09:05:00Z', DEFAULT_SETTINGS, 'de')} als genommen erfasst.`,
    );
    await advance(10_000);
    expect(screen.getByTestId('location').textContent).toBe(`/notifications/take/${TOKEN}`);
    // Nowhere to go from here without a session: no Close that would lead to sign-in.
    expect(screen.queryByRole('button', { name: 'Schließen' })).toBeNull();
  });

  it('records the dose and stays to show why the stock did not follow', async () => {
    const logged = () =>
      ok({ id: 90, status: 'taken', taken: '2026-11-22T09:05:00Z', warning: 'Stock is counted in ml but doses are in units', warning_code: 'stock_unit_mismatch' }, 201);
    openTake({ [`GET ${PATH}`]: () => ok(detailsJson()), [`POST ${PATH}`]: logged });
    await screen.findByRole('radio', { name: 'Taken' });

    vi.useFakeTimers();
    fireEvent.click(screen.getByRole('button', { name: 'Log as Taken' }));
    await advance(5);
    expect(screen.getByTestId('take-success').textContent).toBe('Medication taken logged successfully!');
    expect(screen.getByTestId('dose-warning').textContent).toContain('the stock was not updated');
    await advance(5000);
    expect(screen.getByTestId('location').textContent).toBe(`/notifications/take/${TOKEN}`);
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(screen.getByTestId('location').textContent).toBe('/today');
  });

  it('shows an unknown warning in the server\'s words', async () => {
    const logged = () => ok({ id: 90, status: 'taken', taken: '2026-11-22T09:05:00Z', warning: 'Something odd happened to the stock', warning_code: null }, 201);
    openTake({ [`GET ${PATH}`]: () => ok(detailsJson()), [`POST ${PATH}`]: logged });
    await userEvent.click(await screen.findByRole('button', { name: 'Log as Taken' }));
    expect((await screen.findByTestId('dose-warning')).textContent).toBe('Something odd happened to the stock');
  });

  it('closes the window on Close instead when another window opened it', async () => {
    const close = vi.spyOn(window, 'close').mockImplementation(() => undefined);
    vi.stubGlobal('opener', {});
    openTake({ [`GET ${PATH}`]: () => ok(detailsJson()), [`POST ${PATH}`]: () => ok({ id: 90, status: 'taken', taken: '2026-11-22T09:05:00Z' }, 201) });
    await screen.findByRole('radio', { name: 'Taken' });

    vi.useFakeTimers();
    fireEvent.click(screen.getByRole('button', { name: 'Log as Taken' }));
    await advance(5);
    expect(screen.getByTestId('take-success').textContent).toBe('Medication taken logged successfully!');
    await advance(5000);
    expect(close).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(close).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId('location').textContent).toBe(`/notifications/take/${TOKEN}`);
  });

  it('Cancel leaves at once without logging', async () => {
    const fetchMock = openTake({ [`GET ${PATH}`]: () => ok(detailsJson()) });
    await userEvent.click(await screen.findByRole('button', { name: 'Cancel' }));
    expect(screen.getByTestId('location').textContent).toBe('/today');
    expect(requestsTo(fetchMock, 'POST', PATH)).toHaveLength(0);
  });

  it('shows "Invalid Link" for an unknown token, with Go Home', async () => {
    openTake({ [`GET ${PATH}`]: () => fail('Invalid or expired token', 404, 'invalid_token') });
    expect(await screen.findByRole('heading', { level: 1, name: 'Invalid Link' })).toBeTruthy();
    expect(screen.queryByRole('radio')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Go Home' }));
    expect(screen.getByTestId('location').textContent).toBe('/');
  });

  it('shows the dose as logged when the reminder was answered already', async () => {
    openTake({
      [`GET ${PATH}`]: () => ok(detailsJson({ logged: { status: 'missed', taken: '2026-11-22T09:10:00Z' } })),
    });
    const note = await screen.findByTestId('take-already-logged');
    expect(note.textContent).toBe(
      `This dose was already logged as missed (${formatDateTime('2026-11-22T09:10:00Z', DEFAULT_SETTINGS, 'en')}).`,
    );
    expect(screen.queryByRole('radio')).toBeNull();
    expect(screen.queryByRole('button', { name: /^Log as/ })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(screen.getByTestId('location').textContent).toBe('/today');
  });

  it('names whose dose it is, and who handled it and when (a carer\'s link shows the same)', async () => {
    openTake({
      [`GET ${PATH}`]: () =>
        ok(
          detailsJson({
            person_name: 'Grandpa Jo',
            logged: { status: 'taken', taken: '2026-11-22T09:10:00Z' },
            handled_by: 'Kim Berg',
            handled_at: '2026-11-22T09:12:00Z',
          }),
        ),
    });
    expect((await screen.findByTestId('take-person')).textContent).toBe('Grandpa Jo');
    expect(screen.getByTestId('take-already-logged').textContent).toBe(
      `This dose was already logged as taken by Kim Berg (${formatDateTime('2026-11-22T09:12:00Z', DEFAULT_SETTINGS, 'en')}).`,
    );
  });

  it('says "This dose was already logged" when the server answers 409', async () => {
    openTake({
      [`GET ${PATH}`]: () => ok(detailsJson()),
      [`POST ${PATH}`]: () => fail('This dose was already logged', 409, 'dose_already_logged'),
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Log as Taken' }));
    expect((await screen.findByRole('alert')).textContent).toBe('This dose was already logged');
    expect(screen.queryByRole('button', { name: 'Log as Taken' })).toBeNull();
    expect(screen.queryByRole('radio')).toBeNull();
    expect(screen.getByRole('button', { name: 'Close' })).toBeTruthy();
  });

  it('says "Failed to log medication" when logging fails, and keeps the form', async () => {
    openTake({
      [`GET ${PATH}`]: () => ok(detailsJson()),
      [`POST ${PATH}`]: () => fail('Internal server error', 500),
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Log as Taken' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Failed to log medication');
    expect(screen.getByRole('button', { name: 'Log as Taken' })).toBeTruthy();
  });

  it('says "Failed to load notification details" and can try again', async () => {
    let failing = true;
    const fetchMock = openTake({
      [`GET ${PATH}`]: () => (failing ? fail('Internal server error', 500) : ok(detailsJson())),
    });
    expect((await screen.findByRole('alert')).textContent).toBe('Failed to load notification details');
    failing = false;
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Time for Aspirin' })).toBeTruthy();
    expect(
      fetchMock.mock.calls.filter(([input]) => new URL(requestUrl(input), 'http://x').pathname === PATH).length,
    ).toBeGreaterThanOrEqual(2);
  });

  it('is translated', async () => {
    localStorage.setItem('dosage_app_settings', JSON.stringify({ language: 'de' }));
    const { default: i18n } = await import('../i18n');
    await i18n.changeLanguage('de');
    openTake({ [`GET ${PATH}`]: () => ok(detailsJson()) });
    const form = (await screen.findByRole('group', { name: 'Diese Einnahme erfassen als' })).closest('form');
    if (!form) throw new Error('no form');
    expect(within(form).getByRole('button', { name: 'Als genommen erfassen' })).toBeTruthy();
    expect(screen.getByTestId('take-dosage').textContent).toBe('2 Tabletten');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Zeit für Aspirin');
  });

  it('snoozes for 10, 30 or 60 minutes and says until when; a snoozed link says so when opened', async () => {
    const until = '2026-11-22T09:40:00Z';
    const fetchMock = openTake({
      [`GET ${PATH}`]: () => ok(detailsJson()),
      [`POST ${PATH}`]: () => ok({ snoozed_until: until }),
    });
    const group = await screen.findByRole('group', { name: 'Remind me again in' });
    expect(within(group).getAllByRole('button').map((b) => b.textContent)).toEqual(['10 min', '30 min', '60 min']);
    await userEvent.click(within(group).getByRole('button', { name: '30 min' }));
    const time = formatDateTime(until, DEFAULT_SETTINGS, 'en').split(' ').slice(1).join(' ');
    expect((await screen.findByTestId('take-snoozed')).textContent).toBe(
      `Snoozed until ${time}: the reminder comes again then.`,
    );
    expect(sentJson(requestsTo(fetchMock, 'POST', PATH)[0]?.[1])).toEqual({ status: 'snoozed', minutes: 30 });
    // The dose can still be logged from here.
    expect(screen.getByRole('button', { name: 'Log as Taken' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Close' })).toBeTruthy();
  });

  it('shows a snooze that happened elsewhere', async () => {
    openTake({ [`GET ${PATH}`]: () => ok(detailsJson({ snoozed_until: '2026-11-22T09:10:00Z' })) });
    expect((await screen.findByTestId('take-snoozed')).textContent).toMatch(/^Snoozed until /);
  });

  it('opened from a Skip link (?action=skip), has Skipped chosen and its button focused, and records nothing yet', async () => {
    const logged = vi.fn(() => ok({ id: 90, status: 'skipped', taken: '2026-11-22T09:05:00Z' }, 201));
    const fetchMock = openTake({ [`GET ${PATH}`]: () => ok(detailsJson()), [`POST ${PATH}`]: logged }, '?action=skip');
    const skipped = await screen.findByRole<HTMLInputElement>('radio', { name: 'Skipped' });
    expect(skipped.checked).toBe(true);
    const submit = screen.getByRole('button', { name: 'Log as Skipped' });
    expect(document.activeElement).toBe(submit);
    expect(requestsTo(fetchMock, 'POST', PATH)).toEqual([]);

    await userEvent.click(submit);
    expect((await screen.findByTestId('take-success')).textContent).toBe('Medication skipped logged successfully!');
    expect(sentJson(requestsTo(fetchMock, 'POST', PATH)[0]?.[1])).toEqual({ status: 'skipped' });
  });

  it('opened from a Snooze link (?action=snooze), focuses "10 min" and snoozes only when pressed', async () => {
    const fetchMock = openTake(
      { [`GET ${PATH}`]: () => ok(detailsJson()), [`POST ${PATH}`]: () => ok({ snoozed_until: '2026-11-22T09:20:00Z' }) },
      '?action=snooze',
    );
    const group = await screen.findByRole('group', { name: 'Remind me again in' });
    const ten = within(group).getByRole('button', { name: '10 min' });
    expect(document.activeElement).toBe(ten);
    expect(ten.className).toContain('button-primary');
    // Taken stays the choice of the form below; nothing is sent by opening the page.
    expect(screen.getByRole<HTMLInputElement>('radio', { name: 'Taken' }).checked).toBe(true);
    expect(requestsTo(fetchMock, 'POST', PATH)).toEqual([]);

    await userEvent.click(ten);
    expect(await screen.findByTestId('take-snoozed')).toBeTruthy();
    expect(sentJson(requestsTo(fetchMock, 'POST', PATH)[0]?.[1])).toEqual({ status: 'snoozed', minutes: 10 });
  });

  it('ignores an action it does not know', async () => {
    const fetchMock = openTake({ [`GET ${PATH}`]: () => ok(detailsJson()) }, '?action=taken-now');
    expect(await screen.findByRole<HTMLInputElement>('radio', { name: 'Taken' })).toHaveProperty('checked', true);
    expect(requestsTo(fetchMock, 'POST', PATH)).toEqual([]);
  });
});
