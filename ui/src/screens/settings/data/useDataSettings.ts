import { useDataSettingsQuery } from '../../../queries/account';

/** The server's data settings for a section: null while loading, with a retry after a failure. */
export function useDataSettings() {
  const query = useDataSettingsQuery();
  const { refetch } = query;
  return {
    settings: query.data ?? null,
    failed: query.isError && !query.data && !query.isFetching,
    retry: () => void refetch(),
  };
}
