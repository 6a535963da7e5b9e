import { useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import {
  defaultClock,
  hasMoreOptions,
  repeatsDaily,
  type DayPattern,
  type MedicationForm,
  type RulesForm,
  type StepForm,
} from '../../medications/medicationForm';
import { findUnit } from '../../medications/units';
import { CloseIcon } from '../icons';
import { NumberField } from '../NumberField';
import { SwitchField } from '../notifications/preferenceFields';
import { PlusIcon } from './MedicationIcon';

interface RulesProps {
  idPrefix: string;
  form: MedicationForm;
  onChange: (changes: Partial<MedicationForm>) => void;
}

const DAY_PATTERNS: DayPattern[] = ['every_day', 'every_n_days', 'cycle'];
const MAX_STEPS = 24;

/** An as-needed medication's limits: shown with the frequency, as they are its whole schedule. */
export function AsNeededLimits({ idPrefix, form, onChange }: RulesProps) {
  const { t } = useTranslation('meds');
  const id = (name: string) => `${idPrefix}-${name}`;
  const rules = (changes: Partial<RulesForm>) => onChange({ rules: { ...form.rules, ...changes } });
  return (
    <fieldset className="choice-group" aria-describedby={id('limits-hint')}>
      <legend>{t('rules.limits')}</legend>
      <p id={id('limits-hint')} className="field-hint">
        {t('rules.limitsHint')}
      </p>
      <div className="field-row">
        <NumberField          kind="whole"          id={id('max-per-day')}
          label={t('rules.maxPerDay')}
          value={form.rules.maxPerDay}
          min={1}
          max={48}
          onChange={(maxPerDay) => rules({ maxPerDay })}
        />
      </div>
      {/^\d+$/.test(form.rules.maxPerDay.trim()) && Number(form.rules.maxPerDay) > 0 && (
        <p className="field-hint" data-testid="max-per-day-words">
          {t('schedule.maxPerDay', { count: Number(form.rules.maxPerDay) })}
        </p>
      )}
      <fieldset className="choice-group" aria-describedby={id('min-gap-hint')}>
        <legend>{t('rules.minGap')}</legend>
        <div className="field-row">
          <NumberField            kind="whole"            id={id('min-gap-hours')}
            label={t('rules.minGapHours')}
            value={form.rules.minGapHours}
            min={0}
            max={24}
            onChange={(minGapHours) => rules({ minGapHours })}
          />
          <NumberField            kind="whole"            id={id('min-gap-minutes')}
            label={t('rules.minGapMinutes')}
            value={form.rules.minGapMinutes}
            min={0}
            max={59}
            onChange={(minGapMinutes) => rules({ minGapMinutes })}
          />
        </div>
        <span id={id('min-gap-hint')} className="field-hint">
          {t('rules.minGapHint')}
        </span>
      </fieldset>
    </fieldset>
  );
}

/**
 * The rules beyond times of day, behind a disclosure so that the common form stays short;
 * it starts open when the medication already uses any of them.
 */
export function MoreScheduleOptions({ idPrefix, form, onChange }: RulesProps) {
  const { t } = useTranslation('meds');
  const [open, setOpen] = useState(() => hasMoreOptions(form));
  const id = (name: string) => `${idPrefix}-${name}`;
  const r = form.rules;
  const rules = (changes: Partial<RulesForm>) => onChange({ rules: { ...r, ...changes } });
  const daily = repeatsDaily(form.frequency);
  const unit = findUnit(form.unit)?.symbol ?? form.unit;

  const setStep = (index: number, changes: Partial<StepForm>) =>
    rules({ steps: r.steps.map((step, i) => (i === index ? { ...step, ...changes } : step)) });
  const addStep = () => {
    const last = r.steps.at(-1);
    rules({ steps: [...r.steps, { days: last?.days ?? '7', quantity: last?.quantity ?? form.defaultQuantity }] });
  };
  const removeStep = (index: number) => rules({ steps: r.steps.filter((_, i) => i !== index) });
  const clock = r.clock === '' ? defaultClock(r.intervalHours) : r.clock;

  return (
    <section className="more-options">
      <button
        type="button"
        className="disclosure"
        aria-expanded={open}
        aria-controls={id('more')}
        onClick={() => setOpen((o) => !o)}
      >
        <span className="disclosure-mark" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        {t('rules.more')}
      </button>
      <div id={id('more')} className="more-options-body" hidden={!open}>
        {daily && (
          <>
            <NumberField              kind="whole"              id={id('interval')}
              label={t('rules.intervalHours')}
              value={r.intervalHours}
              min={1}
              max={24}
              hint={t('rules.intervalHint')}
              onChange={(intervalHours) => rules({ intervalHours })}
            />
            <div className="field">
              <label htmlFor={id('days')}>{t('rules.days')}</label>
              <select
                id={id('days')}
                value={r.dayPattern}
                onChange={(event) => {
                  const dayPattern = DAY_PATTERNS.find((p) => p === event.target.value);
                  if (dayPattern) rules({ dayPattern });
                }}
              >
                {DAY_PATTERNS.map((pattern) => (
                  <option key={pattern} value={pattern}>
                    {t(`rules.pattern.${pattern}`)}
                  </option>
                ))}
              </select>
            </div>
            {r.dayPattern === 'every_n_days' && (
              <NumberField                kind="whole"                id={id('every-days')}
                label={t('rules.everyDays')}
                value={r.everyDays}
                min={1}
                max={366}
                onChange={(everyDays) => rules({ everyDays })}
              />
            )}
            {r.dayPattern === 'cycle' && (
              <div className="field-row">
                <NumberField                  kind="whole"                  id={id('cycle-on')}
                  label={t('rules.cycleOn')}
                  value={r.cycleOnDays}
                  min={1}
                  max={366}
                  onChange={(cycleOnDays) => rules({ cycleOnDays })}
                />
                <NumberField                  kind="whole"                  id={id('cycle-off')}
                  label={t('rules.cycleOff')}
                  value={r.cycleOffDays}
                  min={1}
                  max={366}
                  onChange={(cycleOffDays) => rules({ cycleOffDays })}
                />
              </div>
            )}
            <div className="field">
              <label htmlFor={id('rules-start')}>{t('form.startDate')}</label>
              <input
                id={id('rules-start')}
                type="date"
                value={form.startDate}
                onChange={(event) => onChange({ startDate: event.target.value })}
                aria-describedby={id('rules-start-hint')}
              />
              <span id={id('rules-start-hint')} className="field-hint">
                {t('rules.startHint')}
              </span>
            </div>
          </>
        )}

        <div className="field">
          <label htmlFor={id('end')}>{t('rules.endDate')}</label>
          <input
            id={id('end')}
            type="date"
            value={r.endDate}
            min={form.startDate || undefined}
            onChange={(event) => rules({ endDate: event.target.value })}
            aria-describedby={id('end-hint')}
          />
          <span id={id('end-hint')} className="field-hint">
            {t('rules.endDateHint')}
          </span>
        </div>

        <fieldset className="choice-group" aria-describedby={id('steps-hint')}>
          <legend>{t('rules.steps')}</legend>
          <p id={id('steps-hint')} className="field-hint">
            {t('rules.stepsHint')}
          </p>
          {r.steps.length > 0 && (
            <ol className="step-list">
              {r.steps.map((step, index) => {
                const number = index + 1;
                return (
                  <li key={index} className="step-row" aria-label={t('rules.step', { number })}>
                    <span className="step-number" aria-hidden="true">
                      {number}
                    </span>
                    <NumberField
                      id={id(`step-${index}-days`)}
                      label={t('rules.stepDays')}
                      kind="count"
                      max={366}
                      value={step.days}
                      onChange={(days) => setStep(index, { days })}
                    />
                    <NumberField
                      id={id(`step-${index}-quantity`)}
                      label={t('rules.stepQuantity', { unit })}
                      kind="dose"
                      value={step.quantity}
                      onChange={(quantity) => setStep(index, { quantity })}
                    />
                    <button
                      type="button"
                      className="icon-button"
                      aria-label={t('rules.removeStep', { number })}
                      onClick={() => removeStep(index)}
                    >
                      <CloseIcon />
                    </button>
                  </li>
                );
              })}
            </ol>
          )}
          {r.steps.length < MAX_STEPS && (
            <div>
              <button type="button" className="button button-secondary button-small" onClick={addStep}>
                <PlusIcon />
                {t('rules.addStep')}
              </button>
            </div>
          )}
        </fieldset>

        {daily && (
          <fieldset className="choice-group">
            <legend>{t('rules.clock')}</legend>
            {(['wall', 'elapsed'] as const).map((kind) => (
              <label key={kind} className="radio-row">
                <input
                  type="radio"
                  name={id('clock')}
                  value={kind}
                  checked={clock === kind}
                  onChange={() => rules({ clock: kind })}
                  aria-describedby={id(`clock-${kind}-hint`)}
                />
                <span className="switch-text">
                  <span className="switch-label">{t(kind === 'wall' ? 'rules.clockWall' : 'rules.clockElapsed')}</span>
                  <span id={id(`clock-${kind}-hint`)} className="field-hint">
                    {t(kind === 'wall' ? 'rules.clockWallHint' : 'rules.clockElapsedHint')}
                  </span>
                </span>
              </label>
            ))}
          </fieldset>
        )}

        <NumberField          kind="whole"          id={id('grace')}
          label={t('rules.grace')}
          value={r.graceMinutes}
          min={1}
          max={720}
          hint={t('rules.graceHint')}
          onChange={(graceMinutes) => rules({ graceMinutes })}
        />

        <fieldset className="choice-group">
          <legend>{t('rules.followUps')}</legend>
          <SwitchField
            label={t('rules.ownFollowUps')}
            hint={t('rules.ownFollowUpsHint')}
            checked={r.ownFollowUps}
            onChange={(ownFollowUps) => rules({ ownFollowUps })}
          />
          {r.ownFollowUps && (
            <div className="field-row">
              <NumberField                kind="whole"                id={id('repeat-every')}
                label={t('rules.repeatEvery')}
                value={r.repeatEveryMinutes}
                min={1}
                max={1440}
                onChange={(repeatEveryMinutes) => rules({ repeatEveryMinutes })}
              />
              <NumberField                kind="whole"                id={id('repeat-times')}
                label={t('rules.repeatTimes')}
                value={r.repeatTimes}
                min={0}
                max={10}
                onChange={(repeatTimes) => rules({ repeatTimes })}
              />
            </div>
          )}
        </fieldset>
      </div>
    </section>
  );
}
