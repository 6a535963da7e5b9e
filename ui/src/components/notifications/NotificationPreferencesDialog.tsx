import { GlobalPreferencesDialog } from './GlobalPreferencesDialog';
import { MedicationPreferencesDialog } from './MedicationPreferencesDialog';

export interface PreferencesTarget {
  id: number;
  name: string;
  delivery_warning?: string | null;
}

/**
 * SPEC §2 "Notification preferences dialog": global mode without `medication` (the defaults
 * of every reminder), per-medication mode with it.
 */
export function NotificationPreferencesDialog({
  medication,
  onClose,
}: {
  medication?: PreferencesTarget;
  onClose: () => void;
}) {
  return medication ? (
    <MedicationPreferencesDialog medication={medication} onClose={onClose} />
  ) : (
    <GlobalPreferencesDialog onClose={onClose} />
  );
}
