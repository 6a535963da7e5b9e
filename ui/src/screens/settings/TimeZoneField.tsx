import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { getServerTimezone } from '../../api/settings';
import { FlashMessage } from '../../components/FlashMessage';
import { useFlash } from '../../components/useFlash';
import { browserTimeZone } from '../../medications/format';
import { saveTimeZone, useTimeZoneVersion } from '../../medications/timezone';
import { useAppSettings } from '../../settings/SettingsContext';

/** Every zone the browser knows, plus the stored one and this device's (older browsers list none). */
export function zoneOptions(stored: string | null, device: string | null): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const all = new Set([...known, 'UTC']);
  if (stored) all.add(stored);
  if (device) all.add(device);
  return [...all].sort((a, b) => a.localeCompare(b));
}

/** The time zone the server keeps for this person: shown, and changed only here or when asked. */
export function TimeZoneField() {
  const { t } = useTranslation();
  const { updateSettings } = useAppSettings();
  const version = useTimeZoneVersion();
  const [stored, setStored] = useState<string | null>(null);
  const [loadFailed, setLoadFailed] = useState(false);
  const [saving, setSaving] = useState(false);
  const [flash, showFlash] = useFlash();
  const device = browserTimeZone();
  const zones = useMemo(() => zoneOptions(stored, device), [stored, device]);

  useEffect(() => {
    const controller = new AbortController();
    getServerTimezone(controller.signal)
      .then((zone) => {
        setStored(zone);
        setLoadFailed(false);
        if (zone) updateSettings({ timezone: zone });
      })
      .catch(() => {
        if (!controller.signal.aborted) setLoadFailed(true);
      });
    return () => controller.abort();
  }, [version, updateSettings]);

  const change = async (zone: string) => {
    const before = stored;
    setStored(zone);
    setSaving(true);
    try {
      await saveTimeZone(zone);
      updateSettings({ timezone: zone });
      showFlash('success', t('settings.appearance.timezoneSaved'));
    } catch {
      setStored(before);
      showFlash('error', t('settings.appearance.timezoneFailed'));
    } finally {
      setSaving(false);
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
        <select
          id="settings-timezone"
          value={stored}
          disabled={saving}
          aria-describedby="settings-timezone-hint"
          onChange={(event) => void change(event.target.value)}
        >
          {zones.map((zone) => (
            <option key={zone} value={zone}>
              {zone === device ? t('settings.appearance.timezoneThisDevice', { zone }) : zone}
            </option>
          ))}
        </select>
      )}
      <span id="settings-timezone-hint" className="field-hint">
        {t('settings.appearance.timezoneHint')}
      </span>
      <FlashMessage flash={flash} />
    </div>
  );
}
