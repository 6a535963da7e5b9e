import { useTranslation } from '../../i18n/useTranslation';
import { DOSE_STATUSES, type HistoryFilters, type Medication } from '../../api/medicationTypes';
import { hasFilters } from '../../medications/historyFilters';

interface HistoryFiltersFormProps {
  filters: HistoryFilters;
  medications: Medication[];
  onChange: (filters: HistoryFilters) => void;
}

/** Status, medication and a date range (dates in the person's zone, both inclusive). */
export function HistoryFiltersForm({ filters, medications, onChange }: HistoryFiltersFormProps) {
  const { t } = useTranslation('meds');
  const set = (changes: Partial<HistoryFilters>) => onChange({ ...filters, ...changes });
  return (
    <div className="history-filters" role="search" aria-label={t('history.filters')}>
      <div className="field filter-wide">
        <label htmlFor="history-status">{t('history.status')}</label>
        <select
          id="history-status"
          value={filters.status ?? ''}
          onChange={(event) => set({ status: DOSE_STATUSES.find((s) => s === event.target.value) ?? '' })}
        >
          <option value="">{t('history.allStatuses')}</option>
          {DOSE_STATUSES.map((status) => (
            <option key={status} value={status}>
              {t(`status.${status}`)}
            </option>
          ))}
        </select>
      </div>
      <div className="field filter-wide">
        <label htmlFor="history-medication">{t('history.medication')}</label>
        <select
          id="history-medication"
          value={filters.medicationId == null ? '' : String(filters.medicationId)}
          onChange={(event) => set({ medicationId: event.target.value === '' ? null : Number(event.target.value) })}
        >
          <option value="">{t('history.allMedications')}</option>
          {medications.map((m) => (
            <option key={m.id} value={String(m.id)}>
              {m.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="history-from">{t('history.from')}</label>
        <input
          id="history-from"
          type="date"
          value={filters.date_from ?? ''}
          max={filters.date_to || undefined}
          onChange={(event) => set({ date_from: event.target.value })}
        />
      </div>
      <div className="field">
        <label htmlFor="history-to">{t('history.to')}</label>
        <input
          id="history-to"
          type="date"
          value={filters.date_to ?? ''}
          min={filters.date_from || undefined}
          onChange={(event) => set({ date_to: event.target.value })}
        />
      </div>
      {hasFilters(filters) && (
        <div className="history-filters-clear">
          <button
            type="button"
            className="button button-quiet button-small"
            onClick={() => onChange({ page: 1, status: '', medicationId: null, date_from: '', date_to: '' })}
          >
            {t('history.clearFilters')}
          </button>
        </div>
      )}
    </div>
  );
}
