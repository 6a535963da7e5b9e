import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { useSearchParams } from 'react-router-dom';
import {
  type DoseStatus,
  type DoseWarning,
  type EntryResult,
  type HistoryEntry,
  type HistoryPage,
} from '../api/medicationTypes';
import { DisabledReason, disabledBecause } from '../components/DisabledReason';
import { AdherenceSummary } from '../components/medications/Adherence';
import { ConfirmDialog } from '../components/medications/ConfirmDialog';
import { DoseWarningNote } from '../components/medications/DoseWarningNote';
import { EditEntryDialog } from '../components/medications/EditEntryDialog';
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
import { useAuth } from '../auth/AuthContext';
import { usePersonScope } from '../people/PersonScopeContext';
import { givenByOf } from '../people/givenBy';
import { canLog } from '../people/roles';
import { usePeople } from '../people/usePeople';
import {
  historyKey,
  useAdherenceQuery,
  useDeleteHistoryEntry,
  useHistoryQuery,
  useUpdateHistoryEntry,
} from '../queries/history';
import '../styles/medications.css';
import '../styles/people.css';

/** SPEC §2 "History screen", with real paging and adherence at a glance (DESIGN §7). */
export function HistoryScreen() {
  const { t } = useTranslation('meds');
  const format = useMedsFormat();
  const client = useQueryClient();
  const { medications } = useMedicationList();
  const { user } = useAuth();
  const { scope } = usePersonScope();
  const { byId, roleOf, tagOf } = usePeople();
  const [params, setParams] = useSearchParams();
  const filters = { ...filtersFromParams(params), personId: scope };
  const query = paramsFromFilters(filters).toString();
  // Only medications whose doses the viewer may log can get a historical entry.
  const loggable = medications?.filter((m) => canLog(roleOf(m.person_id))) ?? null;
  const history = useHistoryQuery(filters);
  // The page on screen stays while another one (or this one again) loads.
  const page = history.data ?? null;
  const loading = history.isFetching;
  const loadError = history.error ? medsErrorText(t, history.error, 'errors.loadHistory') : null;
  // The summary is extra; the history itself reports its own errors.
  const adherence = useAdherenceQuery(scope).data ?? null;
  const updateEntry = useUpdateHistoryEntry();
  const deleteEntry = useDeleteHistoryEntry();
  const [busyEntry, setBusyEntry] = useState<number | null>(null);
  const [deleting, setDeleting] = useState<HistoryEntry | null>(null);
  const [editing, setEditing] = useState<HistoryEntry | null>(null);
  const [adding, setAdding] = useState(false);
  const [flash, showFlash] = useFlash();
  // A recorded dose the stock could not follow: stays until dismissed.
  const [warning, setWarning] = useState<{ name: string; warning: DoseWarning } | null>(null);
  const reload = () => void history.refetch();
  // The answer for the address's own page, not the one kept on screen while it loads.
  const answered = history.isPlaceholderData ? null : history.data;

  // Deleting the last entry of the last page, or an old link, can point past the end: show
  // the last page there is.
  useEffect(() => {
    if (!answered) return;
    const wanted = filtersFromParams(new URLSearchParams(query));
    const last = clampPage(wanted.page, answered.pagination.pages);
    if (last !== wanted.page) setParams(paramsFromFilters({ ...wanted, page: last }), { replace: true });
  }, [answered, query, setParams]);

  // A changed entry shows at once; the refetch the change set off confirms it.
  const showChanged = (entry: HistoryEntry, result: EntryResult) => {
    setWarning(result.warning && { name: entry.medication_name, warning: result.warning });
    client.setQueryData<HistoryPage>(
      historyKey(filters),
      (current) =>
        current && {
          ...current,
          entries: current.entries.map((e) => (e.id === entry.id ? { ...result.entry, person_name: e.person_name } : e)),
        },
    );
  };

  const switchStatus = async (entry: HistoryEntry, status: DoseStatus) => {
    setBusyEntry(entry.id);
    try {
      showChanged(entry, await updateEntry.mutateAsync({ entryId: entry.id, correction: { status } }));
      showFlash('success', t('history.updated', { status: t(`status.${status}`) }));
    } catch (error) {
      showFlash('error', medsErrorText(t, error, 'errors.updateEntry'));
    } finally {
      setBusyEntry(null);
    }
  };

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await deleteEntry.mutateAsync(deleting.id);
    } catch (error) {
      throw new Error(medsErrorText(t, error, 'errors.deleteEntry'), { cause: error });
    }
    setDeleting(null);
    showFlash('success', t('history.deleted'));
  };

  const state = page && pagerState(page.pagination, page.entries.length);
  // Whose dose: the people list's tag (none for the viewer's own), else the name the entry carries.
  const personTag = (of: { person_id: number | null; person_name?: string | null }) =>
    byId(of.person_id) ? tagOf(of.person_id) : (of.person_name ?? null);
  const nothingToLog = loggable && loggable.length === 0 ? t('historical.needsMedication') : null;

  return (
    <div className="screen">
      <header className="screen-header screen-header-row">
        <h1>{t('history.title')}</h1>
        <button
          type="button"
          className="button button-primary"
          onClick={() => setAdding(true)}
          disabled={!loggable || loggable.length === 0}
          {...disabledBecause('history-add-needs-medication', nothingToLog)}
        >
          <PlusIcon />
          {t('historical.button')}
        </button>
      </header>
      <DisabledReason id="history-add-needs-medication" reason={nothingToLog} />

      {adherence && (
        <AdherenceSummary
          adherence={adherence}
          personOf={(m) => (scope === null ? personTag(m) : null)}
        />
      )}

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
                canEdit={canLog(roleOf(entry.person_id))}
                givenBy={givenByOf(entry, user?.id ?? null)}
                person={scope === null ? personTag(entry) : null}
                onStatus={(status) => void switchStatus(entry, status)}
                onEdit={() => setEditing(entry)}
                onDelete={() => setDeleting(entry)}
              />
            ))}
          </ul>
        )}

        {state && state.total > 0 && (
          <Pager
            state={state}
            loading={loading}
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

      {editing && (
        <EditEntryDialog
          entry={editing}
          medication={medications?.find((m) => m.id === editing.medication_id) ?? null}
          onClose={() => setEditing(null)}
          onSaved={(result) => {
            if (result) {
              showChanged(editing, result);
              showFlash('success', t('history.corrected'));
            }
            setEditing(null);
          }}
        />
      )}

      {adding && loggable && (
        <HistoricalEntryDialog
          medications={loggable}
          onClose={() => setAdding(false)}
          onAdded={(added, name) => {
            setAdding(false);
            setWarning(added && { name, warning: added });
            showFlash('success', t('historical.added'));
          }}
        />
      )}
    </div>
  );
}
