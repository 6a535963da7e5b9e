import { useTranslation } from '../../i18n/useTranslation';
import { dateInputValue } from '../../medications/format';

interface EntryMomentFieldsProps {
  /** Prefix of the inputs' ids (`<prefix>-date`, `<prefix>-time`). */
  idPrefix: string;
  date: string;
  time: string;
  onChange: (changes: { date: string } | { time: string }) => void;
}

/** When a dose logged after the fact was taken: a date up to today, and a time. */
export function EntryMomentFields({ idPrefix, date, time, onChange }: EntryMomentFieldsProps) {
  const { t } = useTranslation('meds');
  return (
    <div className="field-row">
      <div className="field">
        <label htmlFor={`${idPrefix}-date`}>{t('historical.date')}</label>
        <input
          id={`${idPrefix}-date`}
          type="date"
          max={dateInputValue(new Date())}
          value={date}
          onChange={(event) => onChange({ date: event.target.value })}
        />
      </div>
      <div className="field">
        <label htmlFor={`${idPrefix}-time`}>{t('historical.time')}</label>
        <input id={`${idPrefix}-time`} type="time" value={time} onChange={(event) => onChange({ time: event.target.value })} />
      </div>
    </div>
  );
}
