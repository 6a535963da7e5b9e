// The account's server-side settings: two-factor status, time zone, data settings, backups,
// the server's version, and whether sign-ups are open.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  downloadBackup,
  downloadExport,
  getDataSettings,
  getRetentionPreview,
  importFile,
  listBackups,
  saveDataSettings,
  type DataSettings,
  type ImportRequest,
  type ExportFormat,
} from '../api/data';
import { getServerTimezone, setServerTimezone } from '../api/settings';
import { getTwoFactorStatus } from '../api/twoFactor';
import { everythingChanged } from './invalidate';
import { queryKeys } from './keys';
import { registrationQuery, signInProvidersQuery, versionQuery } from './providers';

/** Whether people can make an account here now; kept for the app's life once known. */
export function useRegistrationQuery() {
  return useQuery(registrationQuery);
}

export function useSignInProvidersQuery() {
  return useQuery(signInProvidersQuery);
}

export function useTwoFactorStatusQuery() {
  return useQuery({ queryKey: queryKeys.twoFactorStatus, queryFn: ({ signal }) => getTwoFactorStatus(signal) });
}

/** The zone kept on the server; `enabled: false` asks nothing yet. */
export function useTimeZoneQuery({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ queryKey: queryKeys.timeZone, queryFn: () => getServerTimezone(), enabled });
}

/**
 * Saves the person's zone. It moves "today", dates and reminders, so everything loaded is
 * asked again.
 */
export function useSaveTimeZone() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (zone: string) => setServerTimezone(zone),
    onSuccess: () => everythingChanged(client),
  });
}

export function useDataSettingsQuery() {
  return useQuery({ queryKey: queryKeys.dataSettings, queryFn: ({ signal }) => getDataSettings(signal) });
}

export function useSaveDataSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (changes: Partial<DataSettings>) => saveDataSettings(changes),
    onSuccess: (saved, changes) => {
      client.setQueryData(queryKeys.dataSettings, saved);
      // A retention period deletes history now: every view of it is stale.
      if (changes.dataRetention !== undefined && changes.dataRetention > 0) everythingChanged(client);
    },
  });
}

/**
 * How many history entries a retention period would delete now, asked when one is chosen
 * and before anything is saved; each choice asks afresh, so nothing of it is cached.
 */
export function useRetentionPreview() {
  return useMutation({ mutationFn: (days: number) => getRetentionPreview(days) });
}

/** An import file checked (dry run) or imported; an import changes every view of the data. */
export function useImportFile() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (request: ImportRequest) => importFile(request),
    onSuccess: (_summary, { dryRun }) => {
      if (!dryRun) everythingChanged(client);
    },
  });
}

/** An export (JSON, or the history as CSV) as a file to save; it changes nothing. */
export function useDownloadExport() {
  return useMutation({ mutationFn: (format: ExportFormat) => downloadExport(format) });
}

/** One of the kept backups, by its file name, as a file to save. */
export function useDownloadBackup() {
  return useMutation({ mutationFn: (name: string) => downloadBackup(name) });
}

export function useBackupsQuery() {
  return useQuery({ queryKey: queryKeys.backups, queryFn: ({ signal }) => listBackups(signal) });
}

/** The server's version; `enabled: false` asks nothing yet (an answer already kept still shows). */
export function useVersionQuery({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({ ...versionQuery, enabled });
}
