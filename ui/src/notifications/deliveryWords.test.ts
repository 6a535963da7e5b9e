import { describe, expect, it } from 'vitest';
import i18n from '../i18n';
import { deliveryResultText, deliveryTitleText } from './deliveryWords';

const LANGUAGES = ['en', 'de', 'fr', 'es'] as const;

describe('delivery words', () => {
  it('says what happened to each step in every language, from codes and their values', async () => {
    const said: Record<string, string[]> = {};
    for (const lang of LANGUAGES) {
      await i18n.changeLanguage(lang);
      const t = i18n.getFixedT(lang, 'notify');
      said[lang] = [
        deliveryResultText(t, 'push_sent', { delivered: 1, devices: 2 }, 'Sent to 1 of 2 devices'),
        deliveryResultText(t, 'fallback_skipped', { reason: 'email_off' }, 'english'),
        deliveryResultText(t, 'email_sent', { address: 'a@example.test' }, 'english'),
        deliveryTitleText(t, 'dose', { name: 'Aspirin' }, 'Time for Aspirin'),
      ];
    }
    expect(said.en).toEqual([
      'sent to 1 of 2 devices',
      'not sent by e-mail instead: e-mail notifications are off',
      'sent to a@example.test',
      'Time for Aspirin',
    ]);
    expect(said.de).toEqual([
      'an 1 von 2 Geräten gesendet',
      'nicht ersatzweise per E-Mail gesendet: E-Mail-Benachrichtigungen sind aus',
      'an a@example.test gesendet',
      'Zeit für Aspirin',
    ]);
    expect(said.fr?.[1]).toBe('pas envoyée par e-mail à la place : les notifications par e-mail sont désactivées');
    expect(said.es?.[3]).toBe('Hora de Aspirin');
    await i18n.changeLanguage('en');
  });

  it('names whose dose it was when it was someone else’s in the account, in every language', () => {
    const titles = LANGUAGES.map((lang) => {
      const t = i18n.getFixedT(lang, 'notify');
      return [
        deliveryTitleText(t, 'dose', { name: 'Amoxicillin', person: 'Tom' }, 'Tom: Time for Amoxicillin'),
        deliveryTitleText(t, 'dose_repeat', { name: 'Amoxicillin', person: 'Tom' }, 'x'),
        deliveryTitleText(t, 'low_stock', { name: 'Amoxicillin', person: 'Tom' }, 'x'),
      ];
    });
    expect(titles).toEqual([
      ['Tom: Time for Amoxicillin', 'Tom: Reminder again: Amoxicillin', 'Tom: Running low: Amoxicillin'],
      ['Tom: Zeit für Amoxicillin', 'Tom: Erneute Erinnerung: Amoxicillin', 'Tom: Geht zur Neige: Amoxicillin'],
      ['Tom : C’est l’heure de Amoxicillin', 'Tom : Nouveau rappel : Amoxicillin', 'Tom : Stock bas : Amoxicillin'],
      ['Tom: Hora de Amoxicillin', 'Tom: Recordatorio de nuevo: Amoxicillin', 'Tom: Quedan pocas: Amoxicillin'],
    ]);
    // The account holder's own dose, or one whose person can no longer be known, names nobody.
    expect(deliveryTitleText(i18n.getFixedT('de', 'notify'), 'dose', { name: 'Iron' }, 'Time for Iron')).toBe(
      'Zeit für Iron',
    );
  });

  it('titles the stock notices (a refill to order, a batch expiring or expired) in every language', () => {
    const titles = LANGUAGES.map((lang) => {
      const t = i18n.getFixedT(lang, 'notify');
      return (['refill', 'batch_expiring', 'batch_expired'] as const).map((code) =>
        deliveryTitleText(t, code, { name: 'Metformin' }, 'english'),
      );
    });
    expect(titles).toEqual([
      ['Order a refill: Metformin', 'Expires soon: Metformin', 'Expired: Metformin'],
      ['Nachbestellen: Metformin', 'Läuft bald ab: Metformin', 'Abgelaufen: Metformin'],
      ['À renouveler : Metformin', 'Périme bientôt : Metformin', 'Périmé : Metformin'],
      ['Hora de reponer: Metformin', 'Caduca pronto: Metformin', 'Caducado: Metformin'],
    ]);
  });

  it('falls back to the server’s words for a code it does not know, or an older row', () => {
    const t = i18n.getFixedT('en', 'notify');
    expect(deliveryResultText(t, null, {}, 'E-mail is not configured on this server')).toBe(
      'E-mail is not configured on this server',
    );
    expect(deliveryResultText(t, 'sms_sent', {}, 'Sent by SMS')).toBe('Sent by SMS');
    expect(deliveryResultText(t, 'fallback_skipped', { reason: 'moon' }, 'why')).toBe('why');
    expect(deliveryTitleText(t, 'dose', {}, 'Time for your 08:00 medicines')).toBe('Time for your 08:00 medicines');
    expect(deliveryTitleText(t, 'test', {}, 'x')).toBe('Pillbox test notification');
  });

  it('says what a channel did, keeping the channel’s own answer as it came', async () => {
    const refused = 'ntfy answered 401: the access token was refused';
    const said: Record<string, string[]> = {};
    for (const lang of LANGUAGES) {
      await i18n.changeLanguage(lang);
      const t = i18n.getFixedT(lang, 'notify');
      said[lang] = [
        deliveryResultText(t, 'channel_sent', { name: 'Phone', kind: 'ntfy' }, 'english'),
        deliveryResultText(t, 'channel_failed', { name: 'Phone', kind: 'ntfy', detail: refused, retrying: false }, refused),
        deliveryResultText(t, 'channel_failed', { name: 'Phone', kind: 'ntfy', detail: refused, retrying: true }, refused),
        deliveryResultText(t, 'channel_queued', { name: 'Phone', kind: 'ntfy' }, 'Queued for Phone'),
        deliveryResultText(t, 'channel_unavailable', { name: 'Phone', kind: 'ntfy', state: 'active', enabled: false }, 'x'),
      ];
    }
    expect(said.en).toEqual([
      'Phone took it',
      `Phone did not take it: ${refused}`,
      `Phone did not take it: ${refused} (trying again)`,
      'queued for Phone',
      'not sent to Phone (switched off)',
    ]);
    expect(said.de?.[1]).toBe(`Phone hat sie nicht angenommen: ${refused}`);
    expect(said.fr?.[4]).toBe('pas envoyée à Phone (éteint)');
    expect(said.es?.[2]).toBe(`Phone no la aceptó: ${refused} (se volverá a intentar)`);
    await i18n.changeLanguage('en');

    // A deleted channel's row names none: the server's words say it.
    const t = i18n.getFixedT('en', 'notify');
    expect(deliveryResultText(t, 'channel_unavailable', {}, 'the channel was deleted')).toBe('the channel was deleted');
  });
});
