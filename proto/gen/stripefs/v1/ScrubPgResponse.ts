// Original file: proto/stripefs/v1/stripefs.proto

import type { ScrubFinding as _stripefs_v1_ScrubFinding, ScrubFinding__Output as _stripefs_v1_ScrubFinding__Output } from '../../stripefs/v1/ScrubFinding.js';
import type { Long } from '@grpc/proto-loader';

export interface ScrubPgResponse {
  'objectsScanned'?: (number | string | Long);
  'bytesScanned'?: (number | string | Long);
  'errorsFound'?: (number | string | Long);
  'errorsFixed'?: (number | string | Long);
  'findings'?: (_stripefs_v1_ScrubFinding)[];
  'objectsBusy'?: (number | string | Long);
}

export interface ScrubPgResponse__Output {
  'objectsScanned': (number);
  'bytesScanned': (number);
  'errorsFound': (number);
  'errorsFixed': (number);
  'findings': (_stripefs_v1_ScrubFinding__Output)[];
  'objectsBusy': (number);
}
