import { useTranslation } from 'react-i18next';
import { ScreenFrame } from './ScreenFrame';

export function HistoryScreen() {
  const { t } = useTranslation();
  return <ScreenFrame title={t('history.title')} />;
}
