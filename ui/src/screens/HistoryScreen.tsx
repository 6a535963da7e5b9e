import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { deleteHistoryEntry, getAdherence, listHistory, updateHistoryStatus } from '../api/history';
import {
  type Adherence,
  type DoseStatus,
  type DoseWarning,
  type HistoryEntry,
  type HistoryPage,
} from '../api/medicationTypes';
import { AdherenceSummary } from '../components/medications/Adherence';
import { ConfirmDialog } from '../components/medications/ConfirmDialog';
import { DoseWarningNote } from '../components/medications/DoseWarningNote';
import { HistoricalEntryDialog } from '../components/medications/HistoricalEntryDialog';
import { HistoryEntryRow } from '../components/medications/HistoryEntryRow';
import { HistoryFiltersForm } from '../components/medications/HistoryFilters';
import { PlusIcon } from '../components/medications/MedicationIcon';
import { Pager } from '../components/medications/Pager';
import { ScreenStatus } from '../components/medications/ScreenStatus';
import { useMedicationList } from '../components/medications/useMedicationList';
import { useMedsFormat } from '../components/medications/useMedsFormat';
import { FlashMessage } from '../components/FlashMessage';
import { useFlash } from '../components/useFlash';
import { medsErrorText } from '../medications/errors';
import { filtersFromParams, hasFilters, paramsFromFilters } from '../medications/historyFilters';
import { clampPage, pagerState } from '../medications/paging';
import { useTimeZoneVersion } from '../medications/timezone';
import '../styles/medications.css';

/** SPEC §2 "History screen", with real paging and adherence at a glance (DESIGN §7). */
export function HistoryScreen() {
  const { t } = useTranslation('meds');
  const format = useMedsFormat();
  const zoneVersion = useTimeZoneVersion();
  const { medications } = useMedicationList();
  const [params, setParams] = useSearchParams();
  const filters = filtersFromParams(params);
  const query = paramsFromFilters(filters).toString();
  const [page, setPage] = useState<HistoryPage | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  // The request whose answer is on screen; a newer one means the list is loading.
  const [answered, setAnswered] = useState<string | null>(null);
  const [adherence, setAdherence] = useState<Adherence | null>(null);
  const [generation, setGeneration] = useState(0);
  const [busyEntry, setBusyEntry] = useState<number | null>(null);
  const [deleting, setDeleting] = useState<HistoryEntry | null>(null);
  const [adding, setAdding] = useState(false);
  const [flash, showFlash] = useFlash();
  // A recorded dose the stock could not follow: stays until dismissed.
  const [warning, setWarning] = useState<{ name: string; warning: DoseWarning } | null>(null);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  const request = `${query}#${generation}`;
  const loading = answered !== request;

  useEffect(() => {
    const controller = new AbortController();
    const key = `${query}#${generation}`;
    const wanted = filtersFromParams(new URLSearchParams(query));
    listHistory(wanted, controller.signal)
      .then((loaded) => {
        setPage(loaded);
        setLoadError(null);
        setAnswered(key);
        // Deleting the last entry of the last page, or an old link, can point past the
        // end: show the last page there is.
        const last = clampPage(wanted.page, loaded.pagination.pages);
        if (last !== wanted.page) setParams(paramsFromFilters({ ...wanted, page: last }), { replace: true });
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        setLoadError(medsErrorText(t, error, 'errors.loadHistory'));
        setAnswered(key);
      });
    return () => controller.abort();
  }, [zoneVersion, query, generation, t, setParams]);

  useEffect(() => {
    const controller = new AbortController();
    getAdherence(controller.signal)
      .then(setAdherence)
      .catch(() => {
        // The summary is extra; the history itself reports its own errors.
      });
    return () => controller.abort();
  }, [zoneVersion, generation]);

  const switchStatus = async (entry: HistoryEntry, status: DoseStatus) => {
    setBusyEntry(entry.id);
    try {
      const result = await updateHistoryStatus(entry.id, status);
      setWarning(result.warning && { name: entry.medication_name, warning: result.warning });
      setPage((current) =>
        current && {
          ...current,
          entries: current.entries.map((e) => (e.id === entry.id ? result.entry : e)),
        },
      );
      showFlash('success', t('history.updated', { status: t(`status.${status}`) }));
      reload();
    } catch (error) {
      showFlash('error', medsErrorText(t, error, 'errors.updateEntry'));
    } finally {
      setBusyEntry(null);
    }
  };

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await deleteHistoryEntry(deleting.id);
    } catch (error) {
      throw new Error(medsErrorText(t, error, 'errors.deleteEntry'), { cause: error });
    }
    setDeleting(null);
    showFlash('success', t('history.deleted'));
    reload();
  };

  const state = page && pagerState(page.pagination, page.entries.length);

  return (
    <div className="screen">
      <header className="screen-header screen-header-row">
        <h1>{t('history.title')}</h1>
        <button
          type="button"
          className="button button-primary"
          onClick={() => setAdding(true)}
          disabled={!medications || medications.length === 0}
        >
          <PlusIcon />
          {t('historical.button')}
        </button>
      </header>

      {adherence && <AdherenceSummary adherence={adherence} />}

      <section className="history-section" aria-labelledby="history-list-title">
        <h2 id="history-list-title" className="visually-hidden">
          {t('history.listTitle')}
        </h2>
        <HistoryFiltersForm
          filters={filters}
          medications={medications ?? []}
          onChange={(next) => setParams(paramsFromFilters({ ...next, page: 1 }))}
        />
        <FlashMessage flash={flash} />
        {warning && (
          <DoseWarningNote warning={warning.warning} name={warning.name} onDismiss={() => setWarning(null)} />
        )}
        <ScreenStatus loading={loading && !page} error={loadError} onRetry={reload} />

        {page && page.entries.length === 0 && !loadError && (
          <div className="empty-state" data-testid="empty-state">
            <p className="empty-title">{hasFilters(filters) ? t('history.emptyFiltered') : t('history.empty')}</p>
          </div>
        )}

        {page && page.entries.length > 0 && (
          <ul className="history-list" aria-busy={loading} data-testid="history-list">
            {page.entries.map((entry) => (
              <HistoryEntryRow
                key={entry.id}
                entry={entry}
                when={format.dateTime(entry.taken)}
                busy={busyEntry === entry.id}
                onStatus={(status) => void switchStatus(entry, status)}
                onDelete={() => setDeleting(entry)}
              />
            ))}
          </ul>
        )}

        {state && state.total > 0 && (
          <Pager
            state={state}
            disabled={loading}
            onPage={(next) => setParams(paramsFromFilters({ ...filters, page: next }))}
          />
        )}
      </section>

      {deleting && (
        <ConfirmDialog
          title={t('history.deleteTitle')}
          confirmLabel={t('history.deleteConfirm')}
          busyLabel={t('delete.deleting')}
          onConfirm={confirmDelete}
          onClose={() => setDeleting(null)}
        >
          <p>
            {t('history.deleteText', {
              name: deleting.medication_name,
              when: format.dateTime(deleting.taken),
              status: t(`status.${deleting.status}`),
            })}
          </p>
        </ConfirmDialog>
      )}

      {adding && medications && (
        <HistoricalEntryDialog
          medications={medications}
          onClose={() => setAdding(false)}
          onAdded={(added, name) => {
            setAdding(false);
            setWarning(added && { name, warning: added });
            showFlash('success', t('historical.added'));
            reload();
          }}
        />
      )}
    </div>
  );
}
