import { useTranslation } from 'react-i18next';
import { ScreenFrame } from './ScreenFrame';

export function NotificationsScreen() {
  const { t } = useTranslation();
  return <ScreenFrame title={t('notifications.title')} />;
}
