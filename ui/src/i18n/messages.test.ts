import { describe, expect, it } from 'vitest';
import { ApiError, type ErrorCode } from '../api/client';
import { prefsErrorText } from '../components/notifications/prefsErrors';
import { medsErrorText } from '../medications/errors';
import { deliveryFailureDetail, notifyErrorText } from '../notifications/notifyErrors';
import i18n from '.';
import { errorText } from './messages';

/** A refusal as the server sends it; the message is English whatever the language. */
const refusal = (code: ErrorCode, message: string, params?: Record<string, string>, status = 400) =>
  new ApiError(message, status, { success: false, message, code, ...(params ? { params } : {}) });

describe('server refusals are translated by their code', () => {
  it.each([
    ['en', 'Invalid email or password', 'Password is incorrect', 'Current password is incorrect'],
    ['es', 'Correo electrónico o contraseña incorrectos', 'La contraseña no es correcta', 'La contraseña actual no es correcta'],
    ['fr', 'E-mail ou mot de passe incorrect', 'Le mot de passe est incorrect', 'Le mot de passe actuel est incorrect'],
    ['de', 'E-Mail oder Passwort ist falsch', 'Das Passwort ist falsch', 'Das aktuelle Passwort ist falsch'],
  ])('in the account screens (%s)', (language, credentials, wrong, wrongCurrent) => {
    const t = i18n.getFixedT(language);
    const fallback = 'settings.account.deleteFailed';
    expect(errorText(t, refusal('invalid_credentials', 'Invalid email or password', undefined, 401), fallback)).toBe(
      credentials,
    );
    expect(errorText(t, refusal('password_incorrect', 'Password is incorrect'), fallback)).toBe(wrong);
    // The change-password dialog names the password that was wrong.
    const current = { password_incorrect: 'server.wrongCurrentPassword' } as const;
    expect(errorText(t, refusal('password_incorrect', 'Current password is incorrect'), fallback, undefined, current)).toBe(
      wrongCurrent,
    );
  });

  it.each([
    ['en', "Unit 'spoons' is not a valid medical unit", 'Cannot convert between mg and ml', 'Invalid unit specified'],
    ['es', "La unidad 'spoons' no es una unidad médica válida", 'No se puede convertir entre mg y ml', 'Unidad no válida'],
    ['fr', "L'unité « spoons » n'est pas une unité médicale valide", 'Impossible de convertir entre mg et ml', 'Unité non valide'],
    ['de', 'Die Einheit „spoons“ ist keine gültige medizinische Einheit', 'Umrechnung zwischen mg und ml nicht möglich', 'Ungültige Einheit'],
  ])('in the medication screens, with the values in params (%s)', (language, invalid, incompatible, unnamed) => {
    const t = i18n.getFixedT(language, 'meds');
    const text = (error: ApiError) => medsErrorText(t, error, 'errors.add');
    expect(text(refusal('unit_invalid', "Unit 'spoons' is not a valid medical unit", { unit: 'spoons' }))).toBe(invalid);
    expect(text(refusal('unit_invalid', 'Invalid unit specified'))).toBe(unnamed);
    expect(text(refusal('unit_incompatible', 'Cannot convert between mg and ml', { from: 'mg', to: 'ml' }))).toBe(
      incompatible,
    );
  });

  it("translates the account area's codes in the medication screens too (in the app's language)", () => {
    const error = refusal('session_expired', 'Invalid or expired session', undefined, 401);
    expect(medsErrorText(i18n.getFixedT('en', 'meds'), error, 'errors.add')).toBe(
      'Your session has ended. Please sign in again.',
    );
  });

  it('puts the stock and dose units of a mismatch into the sentence', () => {
    const t = i18n.getFixedT('de', 'meds');
    const error = refusal('unit_mismatch', 'Stock is counted in ml but doses are in mg: count the stock in mg', {
      stock: 'ml',
      unit: 'mg',
    });
    expect(medsErrorText(t, error, 'errors.add')).toBe(
      'Der Vorrat wird in ml gezählt, Dosen sind aber in mg: Zählen Sie den Vorrat in mg oder einer Einheit, in die sich eine Dosis umrechnen lässt.',
    );
    expect(medsErrorText(i18n.getFixedT('fr', 'meds'), refusal('stock_below_zero', 'Stock cannot go below zero'), 'errors.add')).toBe(
      'Le stock ne peut pas descendre en dessous de zéro',
    );
    expect(
      medsErrorText(i18n.getFixedT('es', 'meds'), refusal('reminder_exists', 'This medication already has a reminder at that time'), 'errors.add'),
    ).toBe('Este medicamento ya tiene un recordatorio a esa hora');
    expect(
      notifyErrorText(
        i18n.getFixedT('de', 'notify'),
        refusal('subscription_taken', 'This push subscription belongs to another account', undefined, 409),
        'errors.logDose',
      ),
    ).toBe('Dieses Push-Abonnement gehört zu einem anderen Konto');
  });

  it.each([
    ['en', 'This dose was already logged', 'Medication not found'],
    ['es', 'Esta dosis ya se registró', 'Medicamento no encontrado'],
    ['fr', 'Cette prise a déjà été enregistrée', 'Médicament introuvable'],
    ['de', 'Diese Einnahme wurde bereits erfasst', 'Medikament nicht gefunden'],
  ])('in the reminder screens and preferences (%s)', (language, logged, missing) => {
    const notify = i18n.getFixedT(language, 'notify');
    expect(notifyErrorText(notify, refusal('dose_already_logged', 'This dose was already logged', undefined, 409), 'errors.logDose')).toBe(
      logged,
    );
    const prefs = i18n.getFixedT(language, 'notifyPrefs');
    expect(prefsErrorText(prefs, refusal('medication_not_found', 'Medication not found', undefined, 404), 'errors.save')).toBe(
      prefs('errors.withReason', { error: prefs('errors.save'), reason: missing }),
    );
  });

  it('says why a test delivered nothing by the code and the channel list, in the language', () => {
    const notify = i18n.getFixedT('fr', 'notify');
    const nothingTried = new ApiError('x', 409, {
      success: false,
      message: 'No notification could be sent: no delivery method was chosen',
      code: 'delivery_failed',
      data: { results: [] },
    });
    expect(deliveryFailureDetail(notify, nothingTried)).toBe(
      notify('test.noneSent', { reasons: notify('test.noMethod') }),
    );
    expect(deliveryFailureDetail(notify, nothingTried)).not.toContain('delivery method was chosen');
  });

  it('never reads the sentence: the same English text with another code is not translated as before', () => {
    const t = i18n.getFixedT('es');
    expect(errorText(t, refusal('validation_failed', 'Invalid email or password'), 'settings.account.deleteFailed')).toBe(
      'Invalid email or password',
    );
  });

  it('shows a code whose message is the detail (validation_failed) as the server wrote it, and the fallback without a message', () => {
    const t = i18n.getFixedT('de');
    expect(errorText(t, refusal('validation_failed', 'Please enter your password'), 'settings.account.deleteFailed')).toBe(
      'Please enter your password',
    );
    expect(errorText(t, new ApiError('HTTP error! status: 502', 502, null), 'settings.account.deleteFailed')).toBe(
      t('settings.account.deleteFailed'),
    );
  });

  it('reads code and params from the body into the error', () => {
    const error = new ApiError('x', 400, { success: false, message: 'x', code: 'unit_mismatch', params: { stock: 'ml', n: 3, deep: {} } });
    expect(error.code).toBe('unit_mismatch');
    expect(error.params).toEqual({ stock: 'ml', n: '3' });
    expect(new ApiError('x', 502, null).code).toBeNull();
  });
});

describe('form refusals of the account and reminder screens have codes of their own', () => {
  it.each([
    ["en", "Password must be at least 6 characters long", "Please enter a backup code", "Choose at least one delivery method", "Reminder lead must be between 0 and 1440 minutes"],
    ["es", "La contraseña debe tener al menos 6 caracteres", "Escribe un código de respaldo", "Elige al menos un método de envío", "La antelación del recordatorio debe estar entre 0 y 1440 minutos"],
    ["fr", "Le mot de passe doit contenir au moins 6 caractères", "Veuillez saisir un code de secours", "Choisissez au moins un mode d'envoi", "Le délai du rappel doit être compris entre 0 et 1440 minutes"],
    ["de", "Das Passwort muss mindestens 6 Zeichen lang sein", "Bitte geben Sie einen Backup-Code ein", "Wählen Sie mindestens einen Zustellweg", "Die Vorlaufzeit muss zwischen 0 und 1440 Minuten liegen"],
  ])('(%s)', (language, tooShort, enterBackupCode, chooseMethod, leadRange) => {
    const t = i18n.getFixedT(language);
    const fallback = 'settings.account.deleteFailed';
    expect(errorText(t, refusal('password_too_short', 'Password must be at least 6 characters long'), fallback)).toBe(tooShort);
    expect(errorText(t, refusal('backup_code_required', 'Please enter a backup code'), fallback)).toBe(enterBackupCode);
    const prefs = i18n.getFixedT(language, 'notifyPrefs');
    const reason = (error: ApiError) => prefsErrorText(prefs, error, 'errors.save');
    expect(reason(refusal('delivery_method_required', 'Choose at least one delivery method'))).toContain(chooseMethod);
    expect(reason(refusal('lead_out_of_range', 'Reminder lead must be between 0 and 1440 minutes'))).toContain(leadRange);
  });
});
