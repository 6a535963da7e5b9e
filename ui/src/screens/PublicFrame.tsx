import type { ReactNode } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { BrandMark } from '../components/BrandMark';

/** A centred card for the pages people see without signing in. */
export function PublicFrame({ children, footer }: { children: ReactNode; footer?: ReactNode }) {
  const { t } = useTranslation();
  return (
    <div className="public-page">
      <main className="public-card">
        <div className="public-brand">
          <BrandMark size={40} />
          <span>{t('app.name')}</span>
        </div>
        {children}
      </main>
      {footer}
    </div>
  );
}
