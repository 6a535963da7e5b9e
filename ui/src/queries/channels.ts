// The person's channels: the list, and the changes that make it (and the reminder settings
// that name channels) stale.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  createChannel,
  deleteChannel,
  listChannels,
  relinkChannel,
  testChannel,
  updateChannel,
  type ChannelChanges,
  type NewChannel,
} from '../api/channels';
import { channelsChanged } from './invalidate';
import { queryKeys } from './keys';

export function useChannelsQuery() {
  return useQuery({ queryKey: queryKeys.channels, queryFn: ({ signal }) => listChannels(signal) });
}

export function useCreateChannel() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: NewChannel) => createChannel(input),
    onSuccess: () => channelsChanged(client),
  });
}

export function useUpdateChannel() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, changes }: { id: number; changes: ChannelChanges }) => updateChannel(id, changes),
    onSuccess: () => channelsChanged(client),
  });
}

export function useDeleteChannel() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => deleteChannel(id),
    // Refused or not (gone already), the list shows what the server has now.
    onSettled: () => channelsChanged(client),
  });
}

export function useRelinkChannel() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => relinkChannel(id),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.channels }),
  });
}

/** A test: its answer becomes the channel's last result and joins the delivery history. */
export function useTestChannel() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => testChannel(id),
    onSettled: () => {
      void client.invalidateQueries({ queryKey: queryKeys.channels });
      void client.invalidateQueries({ queryKey: queryKeys.deliveries });
    },
  });
}
