import { describe, expect, it } from 'vitest';
import { actionBody, actionButtons, outcomeText, pickLanguage, readPayload, withdrawnText } from './swMessages';

const reminder = {
  title: 'Time for Ibuprofen',
  body: '200 mg at 09:00',
  url: '/today',
  takeUrl: 'https://pills.example/notifications/take/abc',
  takeLabel: 'Einnehmen',
  snoozeLabel: 'Später',
  skipLabel: 'Auslassen',
  tag: 'reminder-7',
  token: 'abc',
  actions: ['take', 'snooze', 'skip'],
};

describe('service worker messages', () => {
  it('reads a reminder with its actions, and offers Take, Snooze (10 min) and Skip', () => {
    const payload = readPayload(JSON.stringify(reminder));
    expect(payload).toMatchObject({ kind: 'reminder', token: 'abc', tag: 'reminder-7', actions: ['take', 'snooze', 'skip'] });
    if (payload.kind !== 'reminder') throw new Error('not a reminder');
    expect(actionButtons(payload, 'de')).toEqual([
      { action: 'take', title: 'Einnehmen' },
      { action: 'snooze', title: 'Später (10 Min.)' },
      { action: 'skip', title: 'Auslassen' },
    ]);
    // A browser with two buttons (Chrome) keeps Take and Snooze; Skip is on the take page.
    expect(actionButtons(payload, 'en', 2).map((button) => button.action)).toEqual(['take', 'snooze']);
  });

  it('keeps the Take link of a reminder without a token', () => {
    const payload = readPayload(JSON.stringify({ ...reminder, token: undefined, actions: undefined }));
    if (payload.kind !== 'reminder') throw new Error('not a reminder');
    expect(actionButtons(payload, 'en')).toEqual([{ action: 'take', title: 'Einnehmen' }]);
  });

  it('reads a withdrawal, and anything else as a plain notification', () => {
    expect(readPayload('{"kind":"withdraw","tag":"reminder-7","outcome":"taken"}')).toEqual({
      kind: 'withdraw',
      tag: 'reminder-7',
      outcome: 'taken',
    });
    expect(readPayload('plain text')).toEqual({ kind: 'reminder', title: 'Pillbox', body: 'plain text', actions: [] });
    expect(readPayload(null)).toEqual({ kind: 'reminder', title: 'Pillbox', body: '', actions: [] });
  });

  it('posts what each action means', () => {
    expect(actionBody('take')).toEqual({ status: 'taken' });
    expect(actionBody('snooze')).toEqual({ status: 'snoozed', minutes: 10 });
    expect(actionBody('skip')).toEqual({ status: 'skipped' });
  });

  it('says the outcome in the app language, else the browser language', () => {
    expect(pickLanguage('fr', 'de-DE')).toBe('fr');
    expect(pickLanguage(null, 'de-AT')).toBe('de');
    expect(pickLanguage(null, 'ja')).toBe('en');
    expect(outcomeText('take', 'es', null)).toBe('Registrada como tomada.');
    expect(outcomeText('snooze', 'en', '2026-11-23T14:30:00Z')).toMatch(/^Snoozed until \d{2}:30( [AP]M)?\.$/);
    expect(withdrawnText('skipped', 'de')).toBe('Ausgelassen: auf einem anderen Gerät erfasst.');
    expect(withdrawnText('corrected', 'fr')).toBe(
      "Retirée : l'horloge du serveur a été corrigée et cette prise n'est pas encore en retard.",
    );
    expect(withdrawnText('something new', 'en')).toBe('Answered on another device.');
  });
});
