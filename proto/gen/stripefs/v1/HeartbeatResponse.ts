// Original file: proto/stripefs/v1/stripefs.proto

import type { StaleCopies as _stripefs_v1_StaleCopies, StaleCopies__Output as _stripefs_v1_StaleCopies__Output } from '../../stripefs/v1/StaleCopies.js';
import type { TicketKey as _stripefs_v1_TicketKey, TicketKey__Output as _stripefs_v1_TicketKey__Output } from '../../stripefs/v1/TicketKey.js';
import type { AdminKey as _stripefs_v1_AdminKey, AdminKey__Output as _stripefs_v1_AdminKey__Output } from '../../stripefs/v1/AdminKey.js';
import type { Long } from '@grpc/proto-loader';

export interface HeartbeatResponse {
  'mapEpoch'?: (number | string | Long);
  'staleCopies'?: (_stripefs_v1_StaleCopies)[];
  'readLeaseMs'?: (number);
  'ticketKeys'?: (_stripefs_v1_TicketKey)[];
  'revokedClients'?: (string)[];
  'adminKeys'?: (_stripefs_v1_AdminKey)[];
  'writableEpoch'?: (number | string | Long);
  '_writableEpoch'?: "writableEpoch";
}

export interface HeartbeatResponse__Output {
  'mapEpoch': (number);
  'staleCopies': (_stripefs_v1_StaleCopies__Output)[];
  'readLeaseMs': (number);
  'ticketKeys': (_stripefs_v1_TicketKey__Output)[];
  'revokedClients': (string)[];
  'adminKeys': (_stripefs_v1_AdminKey__Output)[];
  'writableEpoch'?: (number);
  '_writableEpoch'?: "writableEpoch";
}
