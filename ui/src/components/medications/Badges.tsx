import { useTranslation } from '../../i18n/useTranslation';
import type { DoseStatus, StockStatus } from '../../api/medicationTypes';

const STOCK_CLASS: Record<StockStatus, string> = {
  out_of_stock: 'badge badge-danger',
  low: 'badge badge-warning',
  in_stock: 'badge badge-on',
};

/** Out of stock / Low stock / In stock (SPEC §4). */
export function StockBadge({ status }: { status: StockStatus }) {
  const { t } = useTranslation('meds');
  return (
    <span className={STOCK_CLASS[status]} data-testid="stock-status">
      {t(`stock.status.${status}`)}
    </span>
  );
}

const STATUS_CLASS: Record<DoseStatus, string> = {
  taken: 'badge badge-on',
  skipped: 'badge badge-neutral',
  missed: 'badge badge-danger',
};

export function DoseStatusBadge({ status }: { status: DoseStatus }) {
  const { t } = useTranslation('meds');
  return (
    <span className={STATUS_CLASS[status]} data-testid="dose-status">
      {t(`status.${status}`)}
    </span>
  );
}
