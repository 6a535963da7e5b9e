import { useMemo } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { Medication } from '../../api/medicationTypes';
import { formatDate, formatDateTime, formatPlainDate, formatQuantity, formatTime, formatTimeOfDay, localeOf } from '../../medications/format';
import { gapInWords, scheduleInWords, scheduleLines, type ScheduleCalendar } from '../../medications/schedule';
import { findUnit, isCountUnit } from '../../medications/units';
import { useAppSettings } from '../../settings/SettingsContext';

/** Amounts, units, dates and schedules as the person's language and settings write them. */
export function useMedsFormat() {
  const { t, i18n } = useTranslation('meds');
  const { settings } = useAppSettings();
  const language = i18n.language;
  const { dateFormat, timeFormat } = settings;

  return useMemo(() => {
    const number = (value: number) => formatQuantity(value, language);
    /** "29 tablets", "1 tablet", "2.5 ml". */
    const amountOf = (value: number, unit: string) => {
      const symbol = findUnit(unit)?.symbol ?? unit;
      return isCountUnit(symbol)
        ? t(`amounts.${symbol}`, { count: value, amount: number(value) })
        : `${number(value)} ${symbol}`;
    };
    return {
      language,
      number,
      amount: amountOf,
      /** A unit as a picker shows it: "tablets", "mg (milligrams)". */
      unitLabel: (symbol: string) =>
        isCountUnit(symbol) ? t(`unitNames.${symbol}`) : `${symbol} (${t(`unitNames.${symbol}`)})`,
      dateTime: (instant: string) => formatDateTime(instant, { dateFormat, timeFormat }, language),
      plainDate: (date: string) => formatPlainDate(date, dateFormat, language),
      timeOfDay: (time: string) => formatTimeOfDay(time, timeFormat, language),
      /** A heading's date: "Saturday, November 21, 2026". */
      longDate: (date: Date) => new Intl.DateTimeFormat(localeOf(language), { dateStyle: 'full' }).format(date),
      /** An RFC 3339 instant's local time of day. */
      time: (instant: string) => formatTime(new Date(instant), timeFormat, language),
      /** A moment's local time of day and its local date. */
      moment: {
        time: (moment: Date) => formatTime(moment, timeFormat, language),
        date: (moment: Date) => formatDate(moment, dateFormat),
      },
      schedule: (m: Pick<Medication, 'frequency' | 'schedule' | 'unit'>) =>
        scheduleInWords(t, m.frequency, m.schedule, {
          timeFormat,
          language,
          amount: (value) => amountOf(value, m.unit),
        }),
      /** The whole regimen line by line, with its dates in full (the doctor report). */
      scheduleLines: (m: Pick<Medication, 'frequency' | 'schedule' | 'unit'>, calendar: ScheduleCalendar) =>
        scheduleLines(
          t,
          m.frequency,
          m.schedule,
          {
            timeFormat,
            language,
            amount: (value) => amountOf(value, m.unit),
            date: (date) => formatPlainDate(date, dateFormat),
          },
          calendar,
        ),
      /** The least time between two doses: "4 h", "90 min". */
      gap: (minutes: number) => gapInWords(t, minutes),
    };
  }, [t, language, dateFormat, timeFormat]);
}
