import { useTranslation } from 'react-i18next';
import { PublicFrame } from './PublicFrame';

export function EmailConfirmationScreen() {
  const { t } = useTranslation();
  return (
    <PublicFrame>
      <h1>{t('emailConfirmation.title')}</h1>
    </PublicFrame>
  );
}
