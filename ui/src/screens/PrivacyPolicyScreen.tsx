import { useTranslation } from '../i18n/useTranslation';
import { Link } from 'react-router-dom';
import { PublicFrame } from './PublicFrame';

export function PrivacyPolicyScreen() {
  const { t } = useTranslation();
  const { t: tData } = useTranslation('data');
  return (
    <PublicFrame>
      <h1>{t('privacy.title')}</h1>
      <div className="prose">
        <p>{t('privacy.intro')}</p>
        <p>{t('privacy.noThirdParties')}</p>
        <p>{t('privacy.control')}</p>
        <p>
          <Link to="/settings?section=data">{tData('privacy.exportLink')}</Link>
        </p>
      </div>
      <p className="public-alt">
        <Link to="/">{t('privacy.back')}</Link>
      </p>
    </PublicFrame>
  );
}
