import { useTranslation } from 'react-i18next';
import { PublicFrame } from './PublicFrame';

export function VerifyEmailScreen() {
  const { t } = useTranslation();
  return (
    <PublicFrame>
      <h1>{t('verifyEmail.title')}</h1>
    </PublicFrame>
  );
}
