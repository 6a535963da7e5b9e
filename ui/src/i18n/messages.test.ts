import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import i18n from '.';
import { errorText } from './messages';

const refusal = (message: string) => new ApiError(message, 400, { success: false, message });

describe('server messages', () => {
  it.each([
    ['en', 'Please enter your password', 'Password is incorrect'],
    ['es', 'Escribe tu contraseña', 'La contraseña no es correcta'],
    ['fr', 'Veuillez saisir votre mot de passe', 'Le mot de passe est incorrect'],
    ['de', 'Bitte geben Sie Ihr Passwort ein', 'Das Passwort ist falsch'],
  ])('translates the password confirmation answers (%s)', (language, missing, wrong) => {
    const t = i18n.getFixedT(language);
    expect(errorText(t, refusal('Please enter your password'), 'settings.account.deleteFailed')).toBe(missing);
    expect(errorText(t, refusal('Password is incorrect'), 'settings.account.deleteFailed')).toBe(wrong);
  });

  it('shows an unknown server message as it is, and the fallback without one', () => {
    const t = i18n.getFixedT('en');
    expect(errorText(t, refusal('Something new'), 'settings.account.deleteFailed')).toBe('Something new');
    expect(errorText(t, new ApiError('HTTP error! status: 500', 500, null), 'settings.account.deleteFailed')).toBe(
      'Failed to delete account',
    );
  });
});
