import { useTranslation } from '../../../i18n/useTranslation';
import type { ImportSummary } from '../../../api/data';

/** What an import adds and skips, as a small table (a dry run's "to add", or "added"). */
export function ImportCounts({ summary }: { summary: ImportSummary }) {
  const { t } = useTranslation('data');
  // Prescriptions and stock batches (export files from 1.2 on) only when the file has any.
  const records = (['prescriptions', 'batches'] as const).flatMap((key) => {
    const counts = summary[key] as ImportSummary[typeof key] | undefined;
    return counts && counts.added + counts.skipped > 0 ? [{ key, added: counts.added, skipped: counts.skipped }] : [];
  });
  const rows = [
    { key: 'medications', added: summary.medications.added, skipped: summary.medications.skipped },
    { key: 'schedules', added: summary.schedules.added, skipped: null },
    ...records,
    { key: 'history', added: summary.history.added, skipped: summary.history.skipped },
  ] as const;
  return (
    <table className="data-table" data-testid="import-counts">
      <thead>
        <tr>
          <th scope="col">{t('import.columns.what')}</th>
          <th scope="col" className="numeric">
            {summary.dryRun ? t('import.columns.add') : t('import.columns.added')}
          </th>
          <th scope="col" className="numeric">
            {t('import.columns.skipped')}
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.key}>
            <th scope="row">{t(`import.rows.${row.key}`)}</th>
            <td className="numeric">{row.added}</td>
            <td className="numeric">{row.skipped ?? '–'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** True when the import would add nothing at all. */
export function addsNothing(summary: ImportSummary): boolean {
  return summary.medications.added + summary.schedules.added + summary.history.added === 0;
}
