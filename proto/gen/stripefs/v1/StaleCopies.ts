// Original file: proto/stripefs/v1/stripefs.proto

import type { PgRef as _stripefs_v1_PgRef, PgRef__Output as _stripefs_v1_PgRef__Output } from '../../stripefs/v1/PgRef.js';

export interface StaleCopies {
  'ostId'?: (number);
  'objectIds'?: (string)[];
  'stalePgs'?: (_stripefs_v1_PgRef)[];
}

export interface StaleCopies__Output {
  'ostId': (number);
  'objectIds': (string)[];
  'stalePgs': (_stripefs_v1_PgRef__Output)[];
}
