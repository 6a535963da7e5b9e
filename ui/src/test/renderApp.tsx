import { render } from '@testing-library/react';
import { MemoryRouter, useLocation } from 'react-router-dom';
import { App, preloadRouteScreens } from '../App';
import { testQueryClient } from './queryClient';

// The app fetches each screen on its route's first visit; tests have them all from the start.
await preloadRouteScreens();

function LocationProbe() {
  const location = useLocation();
  return (
    <>
      <div data-testid="location">{location.pathname}</div>
      <div data-testid="location-search">{location.search}</div>
    </>
  );
}

/** The whole app at `path`, with the current path readable from `data-testid="location"`. */
export function renderApp(path: string) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <App queryClient={testQueryClient()} />
      <LocationProbe />
    </MemoryRouter>,
  );
}
