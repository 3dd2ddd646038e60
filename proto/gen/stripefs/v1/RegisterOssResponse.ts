// Original file: proto/stripefs/v1/stripefs.proto

import type { RegisteredOst as _stripefs_v1_RegisteredOst, RegisteredOst__Output as _stripefs_v1_RegisteredOst__Output } from '../../stripefs/v1/RegisteredOst.js';
import type { StaleCopies as _stripefs_v1_StaleCopies, StaleCopies__Output as _stripefs_v1_StaleCopies__Output } from '../../stripefs/v1/StaleCopies.js';
import type { TicketKey as _stripefs_v1_TicketKey, TicketKey__Output as _stripefs_v1_TicketKey__Output } from '../../stripefs/v1/TicketKey.js';
import type { AdminKey as _stripefs_v1_AdminKey, AdminKey__Output as _stripefs_v1_AdminKey__Output } from '../../stripefs/v1/AdminKey.js';
import type { Long } from '@grpc/proto-loader';

export interface RegisterOssResponse {
  'osts'?: (_stripefs_v1_RegisteredOst)[];
  'mapEpoch'?: (number | string | Long);
  'heartbeatIntervalMs'?: (number);
  'staleCopies'?: (_stripefs_v1_StaleCopies)[];
  'readLeaseMs'?: (number);
  'ticketKeys'?: (_stripefs_v1_TicketKey)[];
  'revokedClients'?: (string)[];
  'adminKeys'?: (_stripefs_v1_AdminKey)[];
}

export interface RegisterOssResponse__Output {
  'osts': (_stripefs_v1_RegisteredOst__Output)[];
  'mapEpoch': (number);
  'heartbeatIntervalMs': (number);
  'staleCopies': (_stripefs_v1_StaleCopies__Output)[];
  'readLeaseMs': (number);
  'ticketKeys': (_stripefs_v1_TicketKey__Output)[];
  'revokedClients': (string)[];
  'adminKeys': (_stripefs_v1_AdminKey__Output)[];
}
