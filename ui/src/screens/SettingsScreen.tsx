import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { ScreenFrame } from './ScreenFrame';

export function SettingsScreen() {
  const { t } = useTranslation();
  return (
    <ScreenFrame title={t('settings.title')}>
      <p>
        <Link to="/privacy-policy">{t('settings.privacyLink')}</Link>
      </p>
    </ScreenFrame>
  );
}
