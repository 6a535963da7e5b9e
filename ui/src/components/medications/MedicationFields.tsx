import { useTranslation } from '../../i18n/useTranslation';
import { FREQUENCIES, MEDICATION_COLORS } from '../../api/medicationTypes';
import { emptyInventoryForm, type InventoryForm } from '../../medications/inventoryForm';
import {
  MAX_NAME_LENGTH,
  MAX_NOTES_LENGTH,
  MAX_TIMES,
  MEDICATION_ICONS,
  repeatsDaily,
  timeToAdd,
  type MedicationForm,
} from '../../medications/medicationForm';
import { ISO_WEEKDAYS, weekdayName } from '../../medications/schedule';
import { useAppSettings } from '../../settings/SettingsContext';
import { CloseIcon } from '../icons';
import { EscalationFields } from '../people/EscalationFields';
import { InventoryFields } from './InventoryFields';
import { PrescriptionFields } from './PrescriptionFields';
import { MedicationGlyph, PlusIcon } from './MedicationIcon';
import { AsNeededLimits, MoreScheduleOptions } from './ScheduleOptions';
import { UnitSelect } from './UnitSelect';
import { NumberField } from '../NumberField';
import { SwitchField } from '../notifications/preferenceFields';

interface MedicationFieldsProps {
  idPrefix: string;
  form: MedicationForm;
  onChange: (changes: Partial<MedicationForm>) => void;
  /** The add form has an optional stock section; editing stock has its own dialog. */
  withInventory?: boolean;
  /** Whose medication (for the escalation's carers). */
  personId?: number | null;
  /** Only the person's owner sets who hears of a missed dose. */
  escalationEditable?: boolean;
}

/** The fields of a medication, shared by the Add Medication dialog and a card's edit mode. */
export function MedicationFields({
  idPrefix,
  form,
  onChange,
  withInventory,
  personId = null,
  escalationEditable = false,
}: MedicationFieldsProps) {
  const { t, i18n } = useTranslation('meds');
  const { settings } = useAppSettings();
  const id = (name: string) => `${idPrefix}-${name}`;
  const scheduled = form.frequency !== 'as_needed';
  // Every N hours from one time of day: the first dose's time replaces the list of times.
  const byInterval = repeatsDaily(form.frequency) && form.rules.intervalHours.trim() !== '';
  const changeInventory = (changes: Partial<InventoryForm>) =>
    onChange({ inventory: { ...form.inventory, ...changes } });

  const setTime = (index: number, value: string) =>
    onChange({ times: form.times.map((time, i) => (i === index ? value : time)) });
  const addTime = () => onChange({ times: [...form.times, timeToAdd(form.times, settings.defaultReminderTime)] });
  const removeTime = (index: number) => onChange({ times: form.times.filter((_, i) => i !== index) });
  const toggleWeekday = (day: number) =>
    onChange({
      weekdays: form.weekdays.includes(day) ? form.weekdays.filter((d) => d !== day) : [...form.weekdays, day],
    });

  return (
    <>
      <div className="field">
        <label htmlFor={id('name')}>{t('form.name')}</label>
        <input
          id={id('name')}
          value={form.name}
          maxLength={MAX_NAME_LENGTH}
          autoComplete="off"
          onChange={(event) => onChange({ name: event.target.value })}
          data-autofocus
        />
      </div>

      <div className="field-row">
        <NumberField
          id={id('quantity')}
          label={t('form.defaultQuantity')}
          kind="dose"
          value={form.defaultQuantity}
          onChange={(defaultQuantity) => onChange({ defaultQuantity })}
        />
        <div className="field">
          <label htmlFor={id('unit')}>{t('form.unit')}</label>
          <UnitSelect
            id={id('unit')}
            value={form.unit}
            onChange={(unit) =>
              onChange(
                withInventory && !form.inventory.enabled
                  ? { unit, inventory: emptyInventoryForm(unit) }
                  : { unit },
              )
            }
          />
        </div>
      </div>

      <div className="field">
        <label htmlFor={id('frequency')}>{t('form.frequency')}</label>
        <select
          id={id('frequency')}
          value={form.frequency}
          onChange={(event) => {
            const frequency = FREQUENCIES.find((f) => f === event.target.value);
            if (frequency) onChange({ frequency });
          }}
        >
          {FREQUENCIES.map((frequency) => (
            <option key={frequency} value={frequency}>
              {t(`frequency.${frequency}`)}
            </option>
          ))}
        </select>
      </div>

      {scheduled && byInterval && (
        <div className="field">
          <label htmlFor={id('first-dose')}>{t('rules.firstDoseLabel')}</label>
          <input
            id={id('first-dose')}
            type="time"
            className="time-input"
            value={form.times[0] ?? ''}
            onChange={(event) => onChange({ times: [event.target.value] })}
            aria-describedby={id('first-dose-hint')}
          />
          <span id={id('first-dose-hint')} className="field-hint">
            {t('rules.firstDoseHint')}
          </span>
        </div>
      )}

      {scheduled && !byInterval && (
        <fieldset className="choice-group">
          <legend>{t('form.times')}</legend>
          {form.times.length === 0 && <p className="field-hint">{t('form.timesDefault')}</p>}
          <ul className="time-list">
            {form.times.map((time, index) => (
              <li key={index} className="time-row">
                <input
                  type="time"
                  className="time-input"
                  value={time}
                  aria-label={t('form.timeLabel', { number: index + 1 })}
                  onChange={(event) => setTime(index, event.target.value)}
                />
                <button
                  type="button"
                  className="icon-button"
                  aria-label={t('form.removeTime', { number: index + 1 })}
                  onClick={() => removeTime(index)}
                >
                  <CloseIcon />
                </button>
              </li>
            ))}
          </ul>
          {form.times.length < MAX_TIMES && (
            <div>
              <button type="button" className="button button-secondary button-small" onClick={addTime}>
                <PlusIcon />
                {t('form.addTime')}
              </button>
            </div>
          )}
        </fieldset>
      )}

      {form.frequency === 'weekly' && (
        <fieldset className="choice-group">
          <legend>{t('form.weekdays')}</legend>
          <div className="weekday-picker">
            {ISO_WEEKDAYS.map((day) => (
              <label key={day} className="chip">
                <input type="checkbox" checked={form.weekdays.includes(day)} onChange={() => toggleWeekday(day)} />
                <span aria-hidden="true">{weekdayName(day, i18n.language, 'short')}</span>
                <span className="visually-hidden">{weekdayName(day, i18n.language)}</span>
              </label>
            ))}
          </div>
          <p className="field-hint">{t('form.weekdaysHint')}</p>
        </fieldset>
      )}

      {(form.frequency === 'weekly' || form.frequency === 'monthly') && (
        <div className="field">
          <label htmlFor={id('start')}>{t('form.startDate')}</label>
          <input
            id={id('start')}
            type="date"
            value={form.startDate}
            onChange={(event) => onChange({ startDate: event.target.value })}
            aria-describedby={id('start-hint')}
          />
          <span id={id('start-hint')} className="field-hint">
            {form.frequency === 'monthly' ? t('form.startDateMonthly') : t('form.startDateWeekly')}
          </span>
        </div>
      )}

      {scheduled ? (
        <MoreScheduleOptions idPrefix={idPrefix} form={form} onChange={onChange} />
      ) : (
        <AsNeededLimits idPrefix={idPrefix} form={form} onChange={onChange} />
      )}

      <fieldset className="choice-group">
        <legend>{t('form.color')}</legend>
        <div className="swatches">
          {MEDICATION_COLORS.map((color) => (
            <label key={color} className="swatch-option" title={t(`colors.${color}`)}>
              <input
                type="radio"
                name={id('color')}
                value={color}
                checked={form.color === color}
                onChange={() => onChange({ color })}
              />
              <span className={`swatch med-color-${color}`} aria-hidden="true" />
              <span className="visually-hidden">{t(`colors.${color}`)}</span>
            </label>
          ))}
        </div>
      </fieldset>

      <fieldset className="choice-group">
        <legend>{t('form.icon')}</legend>
        <div className="swatches">
          {MEDICATION_ICONS.map((icon) => (
            <label key={icon} className="icon-option" title={t(`icons.${icon}`)}>
              <input
                type="radio"
                name={id('icon')}
                value={icon}
                checked={form.icon === icon}
                onChange={() => onChange({ icon })}
              />
              <span className={`icon-swatch med-color-${form.color}`} aria-hidden="true">
                <MedicationGlyph icon={icon} />
              </span>
              <span className="visually-hidden">{t(`icons.${icon}`)}</span>
            </label>
          ))}
        </div>
      </fieldset>

      <div className="field">
        <label htmlFor={id('notes')}>{t('form.notes')}</label>
        <textarea
          id={id('notes')}
          rows={3}
          maxLength={MAX_NOTES_LENGTH}
          value={form.notes}
          onChange={(event) => onChange({ notes: event.target.value })}
        />
      </div>

      <PrescriptionFields
        idPrefix={idPrefix}
        form={form.prescription}
        onChange={(prescription) => onChange({ prescription })}
      />

      {escalationEditable && personId !== null && form.frequency !== 'as_needed' && (
        <EscalationFields
          idPrefix={idPrefix}
          personId={personId}
          form={form.escalation}
          onChange={(escalation) => onChange({ escalation })}
        />
      )}

      {withInventory && (
        <section className="form-section" aria-labelledby={id('stock-title')}>
          <SwitchField
            labelId={id('stock-title')}
            label={t('inventory.track')}
            hint={t('inventory.trackHint')}
            checked={form.inventory.enabled}
            onChange={(enabled) => changeInventory({ enabled })}
          />
          {form.inventory.enabled && (
            <InventoryFields
              idPrefix={id('stock')}
              form={form.inventory}
              onChange={changeInventory}
              medicationUnit={form.unit}
              existing={false}
            />
          )}
        </section>
      )}
    </>
  );
}
