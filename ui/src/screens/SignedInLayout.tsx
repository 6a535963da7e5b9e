import { AppShell } from '../components/AppShell';
import { UnitCatalogueGate } from '../components/medications/UnitCatalogueGate';

/** The signed-in screens' layout, fetched with the first of them (App.tsx). */
export function SignedInLayout() {
  return (
    <UnitCatalogueGate>
      <AppShell />
    </UnitCatalogueGate>
  );
}
