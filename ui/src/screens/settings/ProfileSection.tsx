import { useState, type SubmitEvent } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { User } from '../../api/types';
import { useAuth } from '../../auth/AuthContext';
import { displayName } from '../../auth/displayName';
import { FlashMessage } from '../../components/FlashMessage';
import { useFlash } from '../../components/useFlash';
import { errorText } from '../../i18n/messages';
import { useUpdateProfile } from '../../queries/security';
import { SectionHeading } from './SectionHeading';

/** The server keeps names of at most 100 characters. */
const MAX_NAME_LENGTH = 100;

const DATE_LOCALES: Record<string, string> = { en: 'en-US', es: 'es-ES', fr: 'fr-FR', de: 'de-DE' };

/** "November 21, 2026" in English (the spec's long US format), the long form elsewhere. */
export function formatLongDate(instant: string | undefined, language: string): string | null {
  if (!instant) return null;
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return null;
  return new Intl.DateTimeFormat(DATE_LOCALES[language] ?? 'en-US', { dateStyle: 'long' }).format(date);
}

export function ProfileSection({ user }: { user: User }) {
  const { t, i18n } = useTranslation();
  const { updateUser } = useAuth();
  const [editing, setEditing] = useState(false);
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const update = useUpdateProfile();
  const saving = update.isPending;
  const [flash, showFlash] = useFlash();

  const startEditing = () => {
    setFirstName(user.firstName ?? '');
    setLastName(user.lastName ?? '');
    setEditing(true);
  };

  const save = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    update.mutate(
      { firstName: firstName.trim(), lastName: lastName.trim() },
      {
        onSuccess: (updated) => {
          updateUser(updated);
          setEditing(false);
          showFlash('success', t('settings.profile.updated'));
        },
        onError: (error) => showFlash('error', errorText(t, error, 'settings.profile.updateFailed')),
      },
    );
  };

  const name = displayName(user);
  const created = formatLongDate(user.created_at, i18n.language);

  return (
    <>
      <SectionHeading title={t('settings.sections.profile')} description={t('settings.profile.description')} />
      <FlashMessage flash={flash} />
      <div className="card">
        {editing ? (
          <form className="form form-tight" onSubmit={save}>
            <div className="field-row">
              <div className="field">
                <label htmlFor="profile-first-name">{t('settings.profile.firstName')}</label>
                <input
                  id="profile-first-name"
                  autoComplete="given-name"
                  maxLength={MAX_NAME_LENGTH}
                  value={firstName}
                  onChange={(event) => setFirstName(event.target.value)}
                  autoFocus
                />
              </div>
              <div className="field">
                <label htmlFor="profile-last-name">{t('settings.profile.lastName')}</label>
                <input
                  id="profile-last-name"
                  autoComplete="family-name"
                  maxLength={MAX_NAME_LENGTH}
                  value={lastName}
                  onChange={(event) => setLastName(event.target.value)}
                />
              </div>
            </div>
            <div className="button-row">
              <button type="submit" className="button button-primary" disabled={saving}>
                {saving ? t('common.saving') : t('settings.profile.save')}
              </button>
              <button type="button" className="button button-secondary" onClick={() => setEditing(false)} disabled={saving}>
                {t('common.cancel')}
              </button>
            </div>
          </form>
        ) : (
          <>
            <dl className="detail-list">
              <div>
                <dt>{t('settings.profile.email')}</dt>
                <dd className="break-anywhere">{user.email}</dd>
              </div>
              <div>
                <dt>{t('settings.profile.displayName')}</dt>
                <dd className={name === '' ? 'muted' : undefined}>{name === '' ? t('settings.profile.notSet') : name}</dd>
              </div>
              <div>
                <dt>{t('settings.profile.created')}</dt>
                <dd>{created ?? '—'}</dd>
              </div>
            </dl>
            <div className="button-row">
              <button type="button" className="button button-secondary" onClick={startEditing}>
                {t('settings.profile.edit')}
              </button>
            </div>
          </>
        )}
      </div>
    </>
  );
}
