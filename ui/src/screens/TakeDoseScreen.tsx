import { useTranslation } from 'react-i18next';
import { PublicFrame } from './PublicFrame';

export function TakeDoseScreen() {
  const { t } = useTranslation();
  return (
    <PublicFrame>
      <h1>{t('takeDose.title')}</h1>
    </PublicFrame>
  );
}
