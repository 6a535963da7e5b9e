import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import { Dialog } from '../../components/Dialog';
import { FlashMessage } from '../../components/FlashMessage';
import { useFlash } from '../../components/useFlash';
import { browserTimeZone } from '../../medications/format';
import { browserZones, currentZoneName, filterZones, zoneOptions } from '../../medications/timeZones';
import { shiftText, travelEffect, type TravelEffect } from '../../medications/travel';
import { useSaveTimeZone, useTimeZoneQuery } from '../../queries/account';
import { queryKeys } from '../../queries/keys';
import { useMedicationsQuery } from '../../queries/medications';
import { useAppSettings } from '../../settings/SettingsContext';

/** The time zone the server keeps for this person: shown, and changed only here or when asked. */
export function TimeZoneField() {
  const { t } = useTranslation();
  const { updateSettings } = useAppSettings();
  const client = useQueryClient();
  const query = useTimeZoneQuery();
  // The zone chosen here while it is being saved; the server's answer otherwise.
  const [choosing, setChoosing] = useState<string | null>(null);
  const saveTimeZone = useSaveTimeZone();
  const saving = saveTimeZone.isPending;
  const [flash, showFlash] = useFlash();
  const loaded = query.data ?? null;
  // An old name the server still holds (Asia/Calcutta) is shown under today's (Asia/Kolkata).
  const stored = choosing ?? (loaded === null ? null : currentZoneName(loaded));
  const loadFailed = query.isError && loaded === null;
  const device = browserTimeZone();
  // Offsets as of when the screen opened: good enough for a picker.
  const [now] = useState(() => new Date());
  const zones = useMemo(() => zoneOptions(browserZones(), [stored, device], now), [stored, device, now]);
  const [search, setSearch] = useState('');
  const found = useMemo(() => filterZones(zones, search), [zones, search]);
  // The select always holds the zone in use, whatever the search.
  const shown = useMemo(() => {
    const current = zones.find((option) => option.zone === stored);
    return current && !found.includes(current) ? [current, ...found] : found;
  }, [zones, found, stored]);

  // The browser's copy of the settings follows the server's zone.
  useEffect(() => {
    if (loaded) updateSettings({ timezone: loaded });
  }, [loaded, updateSettings]);

  const medications = useMedicationsQuery(null).data ?? [];
  // A new zone waiting for the person to see what it does to their schedules.
  const [pending, setPending] = useState<string | null>(null);

  const choose = (zone: string) => {
    const effect = travelEffect(medications);
    if (effect.sameTime.length + effect.keepInterval.length === 0) void change(zone);
    else setPending(zone);
  };

  const change = async (zone: string) => {
    setPending(null);
    setChoosing(zone);
    try {
      await saveTimeZone.mutateAsync(zone);
      client.setQueryData(queryKeys.timeZone, zone);
      updateSettings({ timezone: zone });
      showFlash('success', t('settings.appearance.timezoneSaved'));
    } catch {
      showFlash('error', t('settings.appearance.timezoneFailed'));
    } finally {
      setChoosing(null);
    }
  };

  return (
    <div className="field">
      <label htmlFor="settings-timezone">{t('settings.appearance.timezone')}</label>
      {stored === null ? (
        <p className={loadFailed ? 'form-error' : 'muted'} role={loadFailed ? 'alert' : 'status'}>
          {loadFailed ? t('settings.appearance.timezoneLoadFailed') : t('settings.appearance.timezoneLoading')}
        </p>
      ) : (
        <>
          <input
            type="search"
            id="settings-timezone-search"
            className="timezone-search"
            value={search}
            placeholder={t('settings.appearance.timezoneSearchPlaceholder')}
            aria-label={t('settings.appearance.timezoneSearch')}
            aria-controls="settings-timezone"
            aria-describedby="settings-timezone-found"
            autoComplete="off"
            onChange={(event) => setSearch(event.target.value)}
          />
          <select
            id="settings-timezone"
            value={stored}
            disabled={saving}
            aria-describedby="settings-timezone-hint"
            onChange={(event) => choose(event.target.value)}
          >
            {shown.map(({ zone, label }) => (
              <option key={zone} value={zone}>
                {zone === device ? t('settings.appearance.timezoneThisDevice', { zone: label }) : label}
              </option>
            ))}
          </select>
          <span id="settings-timezone-found" className="field-hint" role="status">
            {search.trim() === '' ? '' : t('settings.appearance.timezoneFound', { count: found.length })}
          </span>
        </>
      )}
      <span id="settings-timezone-hint" className="field-hint">
        {t('settings.appearance.timezoneHint')}
      </span>
      <FlashMessage flash={flash} />
      {pending !== null && stored !== null && (
        <TravelDialog
          from={stored}
          to={pending}
          effect={travelEffect(medications)}
          onConfirm={() => void change(pending)}
          onClose={() => setPending(null)}
        />
      )}
    </div>
  );
}

interface TravelDialogProps {
  from: string;
  to: string;
  effect: TravelEffect;
  onConfirm: () => void;
  onClose: () => void;
}

/** Before a new zone is saved: which doses stay at their time of day, which keep their interval. */
function TravelDialog({ from, to, effect, onConfirm, onClose }: TravelDialogProps) {
  const { t } = useTranslation();
  const [now] = useState(() => new Date());
  const shift = shiftText(from, to, now);
  return (
    <Dialog
      title={t('settings.appearance.travelTitle', { zone: to })}
      onClose={onClose}
      actions={
        <>
          <button type="button" className="button button-secondary" onClick={onClose} data-autofocus>
            {t('common.cancel')}
          </button>
          <button type="button" className="button button-primary" onClick={onConfirm}>
            {t('settings.appearance.travelConfirm')}
          </button>
        </>
      }
    >
      {effect.sameTime.length > 0 && (
        <>
          <p>{t('settings.appearance.travelSameTime')}</p>
          <ul data-testid="travel-same-time">
            {effect.sameTime.map((name, index) => (
              <li key={`${index}-${name}`}>{name}</li>
            ))}
          </ul>
        </>
      )}
      {effect.keepInterval.length > 0 && (
        <>
          <p>
            {shift === null
              ? t('settings.appearance.travelKeepIntervalUnknown')
              : t('settings.appearance.travelKeepInterval', { shift })}
          </p>
          <ul data-testid="travel-keep-interval">
            {effect.keepInterval.map((name, index) => (
              <li key={`${index}-${name}`}>{name}</li>
            ))}
          </ul>
        </>
      )}
    </Dialog>
  );
}
