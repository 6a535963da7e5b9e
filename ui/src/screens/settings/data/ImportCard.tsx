import { useRef, useState, type ChangeEvent } from 'react';
import { useTranslation } from '../../../i18n/useTranslation';
import { ApiError } from '../../../api/client';
import { IMPORT_LIMIT_BYTES, type ImportSource, type ImportSummary } from '../../../api/data';
import { Dialog } from '../../../components/Dialog';
import { useImportFile } from '../../../queries/account';
import { failureReason } from './failureReason';
import { ImportCounts, addsNothing } from './ImportCounts';

type Step =
  | { kind: 'idle' }
  | { kind: 'checking'; file: File }
  | { kind: 'preview'; file: File; summary: ImportSummary }
  | { kind: 'importing'; file: File; summary: ImportSummary }
  | { kind: 'done'; summary: ImportSummary };

/**
 * Import: a file is first sent as a dry run, whose counts the person confirms; only then is
 * it imported. A refused file shows the server's reason and changes nothing.
 */
export function ImportCard() {
  const { t } = useTranslation('data');
  const { mutateAsync: importFile } = useImportFile();
  const [step, setStep] = useState<Step>({ kind: 'idle' });
  const [error, setError] = useState<string | null>(null);
  const [source, setSource] = useState<ImportSource>('pillbox');
  const input = useRef<HTMLInputElement>(null);

  const refusal = (err: unknown) => {
    if (err instanceof ApiError && err.status === 413) return t('import.tooLarge');
    return t('import.failed', { reason: failureReason(err) ?? (err instanceof Error ? err.message : String(err)) });
  };

  // The same file can be chosen again after a cancel or a fix.
  const clearInput = () => {
    if (input.current) input.current.value = '';
  };

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    setError(null);
    if (file.size > IMPORT_LIMIT_BYTES) {
      setError(t('import.tooLarge'));
      setStep({ kind: 'idle' });
      clearInput();
      return;
    }
    setStep({ kind: 'checking', file });
    try {
      setStep({ kind: 'preview', file, summary: await importFile({ file, dryRun: true, source }) });
    } catch (err) {
      setError(refusal(err));
      setStep({ kind: 'idle' });
      clearInput();
    }
  };

  const cancel = () => {
    setStep({ kind: 'idle' });
    clearInput();
  };

  const confirm = async () => {
    if (step.kind !== 'preview') return;
    setStep({ ...step, kind: 'importing' });
    try {
      // The preview showed the rows that cannot be read; confirming imports the rest.
      const skipUnreadable = step.summary.unreadable.length > 0;
      setStep({ kind: 'done', summary: await importFile({ file: step.file, dryRun: false, source, skipUnreadable }) });
    } catch (err) {
      setError(refusal(err));
      setStep({ kind: 'idle' });
    }
    clearInput();
  };

  const busy = step.kind === 'checking' || step.kind === 'importing';

  return (
    <section className="card" aria-labelledby="data-import-title">
      <h3 id="data-import-title">{t('import.title')}</h3>
      <p className="card-text">{t('import.text')}</p>
      <div className="field">
        <label htmlFor="data-import-source">{t('import.source')}</label>
        <select
          id="data-import-source"
          value={source}
          disabled={busy}
          onChange={(event) => setSource(event.target.value as ImportSource)}
        >
          <option value="pillbox">{t('import.sources.pillbox')}</option>
          <option value="medtimer">{t('import.sources.medtimer')}</option>
          <option value="fhir">{t('import.sources.fhir')}</option>
        </select>
      </div>
      <div className="field file-field">
        <label htmlFor="data-import-file">{t('import.choose')}</label>
        <input
          ref={input}
          id="data-import-file"
          type="file"
          accept=".json,.csv,application/json,text/csv"
          disabled={busy}
          onChange={(event) => void choose(event)}
        />
      </div>
      {step.kind === 'checking' && (
        <p className="muted" role="status">
          {t('import.checking')}
        </p>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {step.kind === 'done' && (
        <>
          <p className="form-success" role="status">
            {t('import.done')}
          </p>
          <ImportCounts summary={step.summary} />
          <SourceFindings summary={step.summary} />
        </>
      )}

      {(step.kind === 'preview' || step.kind === 'importing') && (
        <Dialog
          title={t('import.previewTitle')}
          onClose={step.kind === 'importing' ? undefined : cancel}
          actions={
            <>
              <button
                type="button"
                className="button button-secondary"
                onClick={cancel}
                disabled={step.kind === 'importing'}
                data-autofocus
              >
                {t('common.cancel')}
              </button>
              {!addsNothing(step.summary) && (
                <button
                  type="button"
                  className="button button-primary"
                  onClick={() => void confirm()}
                  disabled={step.kind === 'importing'}
                >
                  {step.kind === 'importing'
                    ? t('import.importing')
                    : step.summary.unreadable.length > 0
                      ? t('import.confirmWithout')
                      : t('import.confirm')}
                </button>
              )}
            </>
          }
        >
          {addsNothing(step.summary) ? (
            <p>{t('import.nothingNew')}</p>
          ) : (
            <p>{t('import.previewText', { file: step.file.name })}</p>
          )}
          <ImportCounts summary={step.summary} />
          <SourceFindings summary={step.summary} />
        </Dialog>
      )}
    </section>
  );
}

/** What reading another app's file found: rows it cannot read, columns it leaves out, notes. */
function SourceFindings({ summary }: { summary: ImportSummary }) {
  const { t } = useTranslation('data');
  return (
    <>
      {summary.unreadable.length > 0 && (
        <div className="form-error" role="alert">
          <p>{t('import.unreadable', { count: summary.unreadable.length })}</p>
          <ul>
            {summary.unreadable.map((row) => (
              <li key={row.line}>{t('import.unreadableRow', { line: row.line, reason: row.reason })}</li>
            ))}
          </ul>
        </div>
      )}
      {summary.unknown_columns.length > 0 && (
        <p>{t('import.unknownColumns', { columns: summary.unknown_columns.join(', ') })}</p>
      )}
      {summary.notices.length > 0 && (
        <ul className="muted">
          {summary.notices.map((notice) => (
            <li key={notice}>{notice}</li>
          ))}
        </ul>
      )}
    </>
  );
}
