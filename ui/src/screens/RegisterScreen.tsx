import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PublicFrame } from './PublicFrame';

export function RegisterScreen() {
  const { t } = useTranslation();
  return (
    <PublicFrame>
      <h1>{t('register.title')}</h1>
      <p className="public-alt">
        {t('register.haveAccount')} <Link to="/login">{t('register.signIn')}</Link>
      </p>
    </PublicFrame>
  );
}
