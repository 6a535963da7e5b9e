import { useTranslation } from 'react-i18next';
import { ScreenFrame } from './ScreenFrame';

export function TodayScreen() {
  const { t } = useTranslation();
  return <ScreenFrame title={t('today.title')} />;
}
