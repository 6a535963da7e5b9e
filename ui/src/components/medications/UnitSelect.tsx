import { useTranslation } from '../../i18n/useTranslation';
import { unitCatalogue } from '../../medications/unitCatalogue';
import { UNIT_CATEGORIES, findUnit, type UnitCategory } from '../../medications/units';
import { useMedsFormat } from './useMedsFormat';

interface UnitSelectProps {
  id: string;
  value: string;
  onChange: (unit: string) => void;
  /** Only these categories (all when left out). */
  categories?: readonly UnitCategory[];
  /** An empty first choice ("Select a unit"). */
  allowEmpty?: boolean;
  invalid?: boolean;
  describedBy?: string;
}

/** The unit catalogue as a grouped picker (the server's, SPEC §3; UnitCatalogueGate loads it). */
export function UnitSelect({ id, value, onChange, categories, allowEmpty, invalid, describedBy }: UnitSelectProps) {
  const { t } = useTranslation('meds');
  const format = useMedsFormat();
  const shown = categories ?? UNIT_CATEGORIES;
  const known = findUnit(value)?.symbol;
  return (
    <select
      id={id}
      value={known ?? value}
      onChange={(event) => onChange(event.target.value)}
      aria-invalid={invalid || undefined}
      aria-describedby={describedBy}
    >
      {(allowEmpty || value === '') && <option value="">{t('units.select')}</option>}
      {value !== '' && !known && <option value={value}>{value}</option>}
      {shown.map((category) => (
        <optgroup key={category} label={t(`unitCategories.${category}`)}>
          {unitCatalogue().filter((u) => u.category === category).map((u) => (
            <option key={u.symbol} value={u.symbol}>
              {format.unitLabel(u.symbol)}
            </option>
          ))}
        </optgroup>
      ))}
    </select>
  );
}
