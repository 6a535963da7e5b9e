import { UnitCatalogueGate } from '../components/medications/UnitCatalogueGate';
import { TakeDoseScreen } from './TakeDoseScreen';

/** The take link's page (no sign-in), fetched with its route (App.tsx). */
export function TakeDoseRoute() {
  return (
    <UnitCatalogueGate>
      <TakeDoseScreen />
    </UnitCatalogueGate>
  );
}
