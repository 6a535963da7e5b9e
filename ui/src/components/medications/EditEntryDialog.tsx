import { useState, type SubmitEvent } from 'react';
import { useTranslation } from '../../i18n/useTranslation';
import type { EntryCorrection } from '../../api/history';
import type { EntryResult, HistoryEntry, Medication } from '../../api/medicationTypes';
import { entryCorrectionProblem } from '../../medications/dosage';
import { medsErrorText, problemText } from '../../medications/errors';
import { dateInputValue, localMoment, timeInputValue } from '../../medications/format';
import { useUpdateHistoryEntry } from '../../queries/history';
import { Dialog } from '../Dialog';
import { DoseFields } from './DoseFields';
import { EntryMomentFields } from './EntryMomentFields';
import { FormDialogActions } from '../FormDialogActions';
import { FormError } from './FormError';

/** The server keeps a note of at most this many characters. */
const MAX_NOTE_LENGTH = 64;
const FORM_ID = 'edit-entry-form';

interface EditEntryDialogProps {
  entry: HistoryEntry;
  /** The entry's medication, for the amount's hints; null once it was deleted. */
  medication: Medication | null;
  onClose: () => void;
  /** The entry was corrected (null: nothing had changed). */
  onSaved: (result: EntryResult | null) => void;
}

/** Corrects a history entry's time, amount and note; a taken dose's stock follows its amount. */
export function EditEntryDialog({ entry, medication, onClose, onSaved }: EditEntryDialogProps) {
  const { t } = useTranslation('meds');
  const [initial] = useState(() => {
    const taken = new Date(entry.taken);
    return {
      date: dateInputValue(taken),
      time: timeInputValue(taken),
      quantity: String(entry.quantity),
      unit: entry.dosage_unit,
      note: entry.dosage ?? '',
    };
  });
  const [fields, setFields] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const update = useUpdateHistoryEntry();
  // Stays busy after success too: the dialog is closing.
  const busy = update.isPending || update.isSuccess;
  const change = (changes: Partial<typeof fields>) => setFields((f) => ({ ...f, ...changes }));

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const problem = entryCorrectionProblem(fields, new Date());
    const moment = localMoment(fields.date, fields.time);
    if (problem || !moment) {
      setError(problemText(t, problem ?? { key: 'validation.dateTimeRequired' }));
      return;
    }
    setError(null);
    // Only what changed is sent: an untouched time keeps its seconds.
    const correction: EntryCorrection = {};
    if (fields.date !== initial.date || fields.time !== initial.time) correction.taken = moment.toISOString();
    if (fields.quantity !== initial.quantity || fields.unit !== initial.unit) {
      correction.quantity = Number(fields.quantity);
      correction.dosage_unit = fields.unit;
    }
    if (fields.note.trim() !== initial.note) correction.dosage = fields.note.trim();
    if (Object.keys(correction).length === 0) {
      onSaved(null);
      return;
    }
    try {
      onSaved(await update.mutateAsync({ entryId: entry.id, correction }));
    } catch (err) {
      setError(medsErrorText(t, err, 'errors.updateEntry'));
    }
  };

  return (
    <Dialog
      title={t('history.editTitle')}
      onClose={busy ? undefined : onClose}
      actions={<FormDialogActions formId={FORM_ID} busy={busy} submitLabel={t('history.save')} onCancel={onClose} />}
    >
      <form id={FORM_ID} className="form form-tight" noValidate onSubmit={(event) => void submit(event)}>
        <p className="field-hint">{t('history.editIntro', { name: entry.medication_name })}</p>
        <FormError text={error} />
        <EntryMomentFields idPrefix="edit-entry" date={fields.date} time={fields.time} onChange={change} />
        <DoseFields
          idPrefix="edit-entry"
          quantity={fields.quantity}
          unit={fields.unit}
          onQuantity={(quantity) => change({ quantity })}
          onUnit={(unit) => change({ unit })}
          medication={medication}
          usesStock={entry.status === 'taken' && entry.affect_inventory}
        />
        <div className="field">
          <label htmlFor="edit-entry-note">{t('history.note')}</label>
          <input
            id="edit-entry-note"
            type="text"
            maxLength={MAX_NOTE_LENGTH}
            value={fields.note}
            onChange={(event) => change({ note: event.target.value })}
          />
        </div>
      </form>
    </Dialog>
  );
}
