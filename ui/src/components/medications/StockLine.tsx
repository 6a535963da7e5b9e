import { useTranslation } from '../../i18n/useTranslation';
import type { Inventory } from '../../api/medicationTypes';
import { onHand, shownStockStatus } from '../../medications/stock';
import { StockBadge } from './Badges';
import { useMedsFormat } from './useMedsFormat';

/** "Stock: 29 of 30 tablets" with its badge, and the forecast when there is one. */
export function StockLine({ inventory, showForecast }: { inventory: Inventory | null; showForecast?: boolean }) {
  const { t } = useTranslation('meds');
  const format = useMedsFormat();
  if (!inventory?.enabled) {
    return showForecast ? <p className="med-stock muted">{t('stock.notTracked')}</p> : null;
  }
  return (
    <div className="med-stock">
      <p className="med-stock-line">
        <span className="med-stock-label">{t('stock.label')}</span>{' '}
        <strong data-testid="stock-quantity">
          {format.amount(onHand(inventory.current_quantity), inventory.total_unit)}
        </strong>{' '}
        <StockBadge status={shownStockStatus(inventory)} />
      </p>
      {inventory.batches?.expiring_soon.map((batch) => (
        <p key={batch.id} className="med-forecast" data-testid="batch-expiring" role="note">
          {t('stock.expiringSoon', {
            name: batch.lot ? t('inventory.batches.lotNamed', { lot: batch.lot }) : t('inventory.batches.noLot'),
            date: format.plainDate(batch.expires_on),
            amount: format.amount(batch.remaining, inventory.total_unit),
          })}
        </p>
      ))}
      {inventory.batches && inventory.batches.expired_remaining > 0 && (
        <p className="med-forecast" data-testid="batch-expired">
          {t('stock.expiredLeft', { amount: format.amount(inventory.batches.expired_remaining, inventory.total_unit) })}
        </p>
      )}
      {showForecast && inventory.runs_out_on && (
        <p className="med-forecast" data-testid="runs-out">
          {t('stock.runsOut', { date: format.plainDate(inventory.runs_out_on) })}
        </p>
      )}
    </div>
  );
}
