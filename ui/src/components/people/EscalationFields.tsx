import { useTranslation } from '../../i18n/useTranslation';
import { Link } from 'react-router-dom';
import type { Carer } from '../../api/peopleTypes';
import {
  ESCALATION_MAX_MINUTES,
  ESCALATION_MIN_MINUTES,
  type EscalationForm,
} from '../../medications/medicationForm';
import { canLog } from '../../people/roles';
import { useCarersQuery } from '../../queries/people';
import { NumberField } from '../NumberField';
import { SwitchField } from '../notifications/preferenceFields';

/** The carers a missed dose can go to: accepted, and allowed to record doses. */
export function escalationCarers(carers: readonly Carer[]): (Carer & { user_id: number })[] {
  return carers.filter(
    (carer): carer is Carer & { user_id: number } =>
      carer.status === 'active' && carer.user_id !== null && canLog(carer.role),
  );
}

interface EscalationFieldsProps {
  idPrefix: string;
  personId: number;
  form: EscalationForm;
  onChange: (escalation: EscalationForm) => void;
}

/**
 * "Missed-dose escalation": when a dose is still not logged this many minutes after its
 * time, the chosen carers are told on their own channels, with their own take link.
 */
export function EscalationFields({ idPrefix, personId, form, onChange }: EscalationFieldsProps) {
  const { t } = useTranslation('circle');
  const query = useCarersQuery(personId);
  const eligible = escalationCarers(query.data ?? []);
  const id = (name: string) => `${idPrefix}-escalation-${name}`;
  const change = (changes: Partial<EscalationForm>) => onChange({ ...form, ...changes });
  // A carer chosen before whose access ended stays listed, so that saving says what changed.
  const unknown = form.carers.filter((userId) => !eligible.some((carer) => carer.user_id === userId));

  return (
    <section className="form-section" aria-labelledby={id('title')} data-testid="escalation-fields">
      <SwitchField
        labelId={id('title')}
        label={t('escalation.title')}
        hint={t('escalation.hint')}
        checked={form.enabled}
        onChange={(enabled) => change({ enabled })}
      />
      {form.enabled && (
        <>
          <NumberField
            id={id('minutes')}
            label={t('escalation.afterMinutes')}
            kind="whole"
            min={ESCALATION_MIN_MINUTES}
            max={ESCALATION_MAX_MINUTES}
            value={form.afterMinutes}
            onChange={(afterMinutes) => change({ afterMinutes })}
            hint={t('escalation.afterMinutesHint', { low: ESCALATION_MIN_MINUTES, high: ESCALATION_MAX_MINUTES })}
          />
          <fieldset className="choice-group">
            <legend>{t('escalation.carers')}</legend>
            {query.isPending && <p className="field-hint">{t('common.loading')}</p>}
            {query.isSuccess && eligible.length === 0 && (
              <p className="field-hint">
                {t('escalation.noCarers')} <Link to={`/people/${personId}`}>{t('escalation.inviteLink')}</Link>
              </p>
            )}
            {eligible.map((carer) => (
              <label key={carer.id} className="choice">
                <input
                  type="checkbox"
                  checked={form.carers.includes(carer.user_id)}
                  onChange={(event) =>
                    change({
                      carers: event.target.checked
                        ? [...form.carers, carer.user_id]
                        : form.carers.filter((userId) => userId !== carer.user_id),
                    })
                  }
                />
                <span>
                  {carer.name ?? carer.email} <span className="muted">({t(`roles.${carer.role}.name`)})</span>
                </span>
              </label>
            ))}
            {unknown.map((userId) => (
              <label key={`gone-${userId}`} className="choice">
                <input
                  type="checkbox"
                  checked
                  onChange={() => change({ carers: form.carers.filter((other) => other !== userId) })}
                />
                <span>{t('escalation.formerCarer')}</span>
              </label>
            ))}
          </fieldset>
        </>
      )}
    </section>
  );
}
