import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFeed, getFeedStatus, revokeFeed } from '../api/calendar';
import { queryKeys } from './keys';

export function useFeedStatusQuery() {
  return useQuery({ queryKey: queryKeys.calendarFeed, queryFn: ({ signal }) => getFeedStatus(signal) });
}

export function useCreateFeed() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: createFeed,
    onSuccess: (feed) => client.setQueryData(queryKeys.calendarFeed, { exists: true, created_at: feed.created_at }),
  });
}

export function useRevokeFeed() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: revokeFeed,
    onSuccess: () => client.setQueryData(queryKeys.calendarFeed, { exists: false, created_at: null }),
  });
}
