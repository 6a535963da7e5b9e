import { render, type RenderOptions } from '@testing-library/react';
import type { ReactElement } from 'react';
import { QueryProvider } from '../queries/QueryProvider';
import { createQueryClient } from '../queries/queryClient';

/** A fresh cache for one test, without retries so a failure shows at once. */
export function testQueryClient() {
  return createQueryClient({ retry: false });
}

/** Renders a component that reads server state, inside its own query cache. */
export function renderWithQuery(ui: ReactElement, options?: RenderOptions) {
  return render(ui, {
    ...options,
    wrapper: ({ children }) => <QueryProvider client={testQueryClient()}>{children}</QueryProvider>,
  });
}
