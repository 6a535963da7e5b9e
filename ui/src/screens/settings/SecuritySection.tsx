import { useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { Link } from 'react-router-dom';
import { FlashMessage } from '../../components/FlashMessage';
import { KeyIcon } from '../../components/icons';
import { useFlash } from '../../components/useFlash';
import { ApiTokensCard } from './ApiTokensCard';
import { ChangePasswordDialog } from './ChangePasswordDialog';
import { LinkedSignInsCard } from './LinkedSignInsCard';
import { PasskeysCard } from './PasskeysCard';
import { SectionHeading } from './SectionHeading';
import { TwoFactorCard } from './TwoFactorCard';

export function SecuritySection() {
  const { t } = useTranslation();
  const [changingPassword, setChangingPassword] = useState(false);
  const [flash, showFlash] = useFlash();

  return (
    <>
      <SectionHeading title={t('settings.sections.security')} description={t('settings.security.description')} />
      <TwoFactorCard />
      <PasskeysCard />

      <section className="card" aria-labelledby="password-title">
        <h3 id="password-title">{t('settings.security.password.heading')}</h3>
        <p className="card-text">{t('settings.security.password.hint')}</p>
        <FlashMessage flash={flash} />
        <div className="button-row">
          <button type="button" className="button button-secondary" onClick={() => setChangingPassword(true)}>
            <KeyIcon />
            <span>{t('settings.security.password.button')}</span>
          </button>
        </div>
      </section>

      <LinkedSignInsCard />

      <ApiTokensCard />

      <section className="card" aria-labelledby="privacy-title">
        <h3 id="privacy-title">{t('settings.security.privacy.heading')}</h3>
        <p className="card-text">{t('settings.security.privacy.text')}</p>
        <p>
          <Link to="/privacy-policy">{t('settings.privacyLink')}</Link>
        </p>
      </section>

      {changingPassword && (
        <ChangePasswordDialog
          onClose={() => setChangingPassword(false)}
          onChanged={() => {
            setChangingPassword(false);
            showFlash('success', t('settings.security.password.changed'));
          }}
        />
      )}
    </>
  );
}
