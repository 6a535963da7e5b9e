import { useRef, useState } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { AddMedicationDialog } from '../components/medications/AddMedicationDialog';
import { MedicationCard } from '../components/medications/MedicationCard';
import { BellSmallIcon, PlusIcon } from '../components/medications/MedicationIcon';
import { useMedicationList } from '../components/medications/useMedicationList';
import { ScreenStatus } from '../components/medications/ScreenStatus';
import { NotificationPreferencesDialog } from '../components/notifications/NotificationPreferencesDialog';
import { usePersonScope } from '../people/PersonScopeContext';
import { canManage, medicationOwners } from '../people/roles';
import { usePeople } from '../people/usePeople';
import '../styles/medications.css';
import '../styles/people.css';

/**
 * SPEC §2 "Medications screen": the card grid, Add Medication, edit, stock and delete, and
 * the notification settings, for all medications or one.
 */
export function MedicationsScreen() {
  const { t } = useTranslation('meds');
  const list = useMedicationList();
  const { scope } = usePersonScope();
  const { people, roleOf, tagOf } = usePeople();
  // Someone to add a medication for: the chosen person when the viewer manages them, else
  // anyone they manage (a server without people: the account itself).
  const canAdd = scope === null ? people === null || medicationOwners(people).length > 0 : canManage(roleOf(scope));
  const [adding, setAdding] = useState(false);
  const [configuring, setConfiguring] = useState(false);
  const { medications } = list;
  const headingRef = useRef<HTMLHeadingElement>(null);

  return (
    <div className="screen">
      <header className="screen-header screen-header-row">
        <h1 ref={headingRef} tabIndex={-1}>
          {t('medications.title')}
        </h1>
        <div className="button-row">
          <button type="button" className="button button-secondary" onClick={() => setConfiguring(true)}>
            <BellSmallIcon />
            {t('card.notifications')}
          </button>
          {canAdd && (
            <button type="button" className="button button-primary" onClick={() => setAdding(true)}>
              <PlusIcon />
              {t('add.button')}
            </button>
          )}
        </div>
      </header>

      <ScreenStatus loading={medications === null} error={list.error} onRetry={list.reload} />

      {medications?.length === 0 && (
        <div className="empty-state" data-testid="empty-state">
          <p className="empty-title">{t('medications.empty')}</p>
          <p className="muted">{t('medications.emptyHint')}</p>
        </div>
      )}

      {medications && medications.length > 0 && (
        <div className="med-grid">
          {medications.map((medication) => (
            <MedicationCard
              key={medication.id}
              medication={medication}
              onDeleted={() => {
                // The card and its buttons are gone; keep the keyboard on the page.
                headingRef.current?.focus();
              }}
              onStale={list.reload}
              role={roleOf(medication.person_id)}
              person={scope === null ? tagOf(medication.person_id) : null}
            />
          ))}
        </div>
      )}

      {configuring && <NotificationPreferencesDialog onClose={() => setConfiguring(false)} />}

      {adding && (
        <AddMedicationDialog
          onClose={() => setAdding(false)}
          onAdded={() => setAdding(false)}
        />
      )}
    </div>
  );
}
