// Original file: proto/stripefs/v1/stripefs.proto

import type { OstHealth as _stripefs_v1_OstHealth, OstHealth__Output as _stripefs_v1_OstHealth__Output } from '../../stripefs/v1/OstHealth.js';
import type { JobUsage as _stripefs_v1_JobUsage, JobUsage__Output as _stripefs_v1_JobUsage__Output } from '../../stripefs/v1/JobUsage.js';
import type { Long } from '@grpc/proto-loader';

export interface HeartbeatRequest {
  'ossId'?: (string);
  'osts'?: (_stripefs_v1_OstHealth)[];
  'mapEpoch'?: (number | string | Long);
  'jobs'?: (_stripefs_v1_JobUsage)[];
  'jobsReport'?: (number | string | Long);
  'jobsDropped'?: (number | string | Long);
  'startedMs'?: (number | string | Long);
}

export interface HeartbeatRequest__Output {
  'ossId': (string);
  'osts': (_stripefs_v1_OstHealth__Output)[];
  'mapEpoch': (number);
  'jobs': (_stripefs_v1_JobUsage__Output)[];
  'jobsReport': (number);
  'jobsDropped': (number);
  'startedMs': (number);
}
