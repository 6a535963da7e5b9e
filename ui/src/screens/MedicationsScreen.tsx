import { useTranslation } from 'react-i18next';
import { ScreenFrame } from './ScreenFrame';

export function MedicationsScreen() {
  const { t } = useTranslation();
  return <ScreenFrame title={t('medications.title')} />;
}
