import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';
import { setOffline } from '../api/connectivity';
import { parseUnitList } from '../api/units';
import i18n from '../i18n';
import { setUnitCatalogue } from '../medications/unitCatalogue';
import units from './fixtures/units.json';

// findBy… and waitFor wait up to 5 s (the default is 1 s): on a busy two-core machine a screen
// was seen to take longer than that to render its first answer, and the test failed on time.
configure({ asyncUtilTimeout: 5_000 });

// Every test starts where the app is after its first GET /api/units: with the server's
// catalogue (the fixture is that answer, taken from the binary).
setUnitCatalogue(parseUnitList(units.data) ?? []);

afterEach(async () => {
  cleanup();
  localStorage.clear();
  setOffline(false);
  document.documentElement.className = '';
  await i18n.changeLanguage('en');
});
