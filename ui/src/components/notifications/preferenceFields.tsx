// The controls the preferences dialog and the Settings page's Notifications section share.
import type { TFunction } from '../../i18n';
import { useId } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { GlobalPreferences } from '../../api/notificationPrefs';
import type { Channel } from '../../api/channels';
import { DELIVERY_METHODS, channelIdOf, type DeliveryMethod } from '../../api/notifications';
import { channelUnusableReason, methodLabel } from '../../notifications/channelWords';
import { useChannelsQuery } from '../../queries/channels';

/** SPEC §9: reminder lead options in the preferences dialog, in minutes, and "at dose time" (0). */
export const DIALOG_LEAD_OPTIONS = [0, 5, 10, 15, 30, 60, 120] as const;
/** SPEC §9: reminder lead options on the Settings page, in minutes, and "at dose time" (0). */
export const SETTINGS_LEAD_OPTIONS = [0, 5, 15, 30, 60, 120] as const;

/** The choices offered, plus the saved value when it is none of them (set elsewhere). */
export function choicesWith(options: readonly number[], current: number): number[] {
  return options.includes(current) ? [...options] : [...options, current].sort((a, b) => a - b);
}

/** "15 minutes before", "1 hour before"; `t` is notifyPrefs'. */
export function leadText(t: TFunction, minutes: number): string {
  if (minutes === 0) return t('lead.atTime');
  return minutes % 60 === 0 ? t('lead.hours', { count: minutes / 60 }) : t('lead.minutes', { count: minutes });
}

interface SwitchFieldProps {
  label: string;
  hint?: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
  /** The label's id, for a section the switch heads (its `aria-labelledby`). */
  labelId?: string;
  /** Takes the focus when it appears (a dialog's first field). */
  autoFocus?: boolean;
}

/** An on/off setting: its name and hint on the left, the switch on the right. */
export function SwitchField({ label, hint, checked, onChange, disabled, labelId, autoFocus }: SwitchFieldProps) {
  return (
    <label className="switch-row">
      <span className="switch-text">
        <span className="switch-label" id={labelId}>
          {label}
        </span>
        {hint && <span className="field-hint">{hint}</span>}
      </span>
      <input
        type="checkbox"
        role="switch"
        className="switch"
        checked={checked}
        disabled={disabled}
        onChange={(event) => onChange(event.target.checked)}
        data-autofocus={autoFocus ? true : undefined}
      />
    </label>
  );
}

interface NumberSelectProps {
  id: string;
  label: string;
  hint?: string;
  value: number;
  options: readonly number[];
  text: (value: number) => string;
  onChange: (value: number) => void;
  disabled?: boolean;
}

/** A select over a few numbers (minutes, counts), each shown through `text`. */
export function NumberSelect({ id, label, hint, value, options, text, onChange, disabled }: NumberSelectProps) {
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        disabled={disabled}
        aria-describedby={hint ? hintId : undefined}
        onChange={(event) => onChange(Number(event.target.value))}
      >
        {choicesWith(options, value).map((option) => (
          <option key={option} value={option}>
            {text(option)}
          </option>
        ))}
      </select>
      {hint && (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      )}
    </div>
  );
}

interface MethodChoicesProps {
  legend: string;
  value: readonly DeliveryMethod[];
  onChange: (methods: DeliveryMethod[]) => void;
  disabled?: boolean;
}

/**
 * Every method a reminder can go by: push, e-mail and each of the person's channels, in that
 * order. A chosen channel the list does not show (it failed to load) stays chosen.
 */
export function offeredMethods(value: readonly DeliveryMethod[], channels: readonly Channel[] | undefined): DeliveryMethod[] {
  const offered: DeliveryMethod[] = [...DELIVERY_METHODS, ...(channels ?? []).map((channel) => channel.method)];
  return [...offered, ...value.filter((method) => !offered.includes(method))];
}

/** Checkboxes for push, e-mail and the person's channels; the result keeps that order. */
export function MethodChoices({ legend, value, onChange, disabled }: MethodChoicesProps) {
  const { t } = useTranslation('notifyPrefs');
  const idBase = useId();
  const channels = useChannelsQuery().data;
  const offered = offeredMethods(value, channels);
  const toggle = (method: DeliveryMethod, on: boolean) =>
    onChange(offered.filter((m) => (m === method ? on : value.includes(m))));
  return (
    <fieldset className="choice-group prefs-methods" disabled={disabled}>
      <legend>{legend}</legend>
      {offered.map((method) => {
        const channel = channels?.find((c) => c.method === method);
        const unusable = channel ? channelUnusableReason(channel) : null;
        const nameId = `${idBase}-${method}`;
        return (
          <label key={method} className="prefs-check">
            <input
              type="checkbox"
              checked={value.includes(method)}
              disabled={disabled}
              aria-labelledby={nameId}
              aria-describedby={unusable ? `${nameId}-state` : undefined}
              onChange={(event) => toggle(method, event.target.checked)}
            />
            <span id={nameId}>{methodLabel(t, method, channels)}</span>
            {unusable && (
              <span id={`${nameId}-state`} className="field-hint">
                {t(`channels.unusable.${unusable}`)}
              </span>
            )}
          </label>
        );
      })}
    </fieldset>
  );
}

/** Shown when this server has no SMTP settings: e-mail may be chosen, but nothing is sent. */
export function EmailUnavailableNote() {
  const { t } = useTranslation('notifyPrefs');
  return (
    <p className="prefs-note" data-testid="email-unavailable">
      {t('emailUnavailable')}
    </p>
  );
}

/** Whether a method reminders are sent by actually sends, and if not, why. */
export type MethodState =
  | 'on'
  | 'notChosen'
  | 'offGlobally'
  | 'unavailable'
  | 'channelOff'
  | 'channelPending'
  | 'channelDisabled'
  | 'channelGone';

/**
 * What the server does with chosen methods: push and e-mail go out only when their global
 * switch is on, e-mail only when the server can send e-mail at all, and a channel only while
 * it is switched on and active. `channels` undefined: the list is not known (not loaded).
 */
export function methodState(
  method: DeliveryMethod,
  chosen: readonly DeliveryMethod[],
  global: GlobalPreferences,
  channels: readonly Channel[] | undefined,
): MethodState {
  if (!chosen.includes(method)) return 'notChosen';
  if (channelIdOf(method) !== null) {
    if (channels === undefined) return 'on';
    const channel = channels.find((c) => c.method === method);
    if (!channel) return 'channelGone';
    const unusable = channelUnusableReason(channel);
    if (unusable === 'off') return 'channelOff';
    if (unusable === 'pending') return 'channelPending';
    return unusable === 'disabled' ? 'channelDisabled' : 'on';
  }
  if (method === 'email' && !global.email_available) return 'unavailable';
  const switchedOn = method === 'email' ? global.email_notifications_enabled : global.push_notifications_enabled;
  return switchedOn ? 'on' : 'offGlobally';
}

interface EffectiveMethodsProps {
  chosen: readonly DeliveryMethod[];
  global: GlobalPreferences;
  /** The methods are the global defaults rather than the medication's own. */
  fromDefaults: boolean;
}

/** Which delivery methods a medication's reminders really go out by, and why the others don't. */
export function EffectiveMethods({ chosen, global, fromDefaults }: EffectiveMethodsProps) {
  const { t } = useTranslation('notifyPrefs');
  const channels = useChannelsQuery().data;
  const states = offeredMethods(chosen, channels).map((method) => ({
    method,
    state: methodState(method, chosen, global, channels),
  }));
  const none = !global.reminders_enabled || states.every(({ state }) => state !== 'on');
  return (
    <div className="prefs-effective" data-testid="effective-methods" aria-live="polite">
      <p className="prefs-effective-title">
        {t('effective.title')} <span className="muted">({t(fromDefaults ? 'effective.fromDefaults' : 'effective.fromOwn')})</span>
      </p>
      <ul>
        {states.map(({ method, state }) => (
          <li key={method} data-testid={`effective-${method}`} className={`prefs-effective-${state}`}>
            <strong>{methodLabel(t, method, channels)}</strong>: {t(`effective.state.${state}`)}
          </li>
        ))}
      </ul>
      {none && (
        <p className="prefs-effective-none" role="alert">
          {global.reminders_enabled ? t('effective.none') : t('effective.remindersOff')}
        </p>
      )}
    </div>
  );
}
