// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface JobUsage {
  'jobId'?: (string);
  'session'?: (string);
  'readOps'?: (number | string | Long);
  'readBytes'?: (number | string | Long);
  'writeOps'?: (number | string | Long);
  'writeBytes'?: (number | string | Long);
  'otherOps'?: (number | string | Long);
  'readMs'?: (number | string);
  'writeMs'?: (number | string);
  'otherMs'?: (number | string);
  'errors'?: (number | string | Long);
}

export interface JobUsage__Output {
  'jobId': (string);
  'session': (string);
  'readOps': (number);
  'readBytes': (number);
  'writeOps': (number);
  'writeBytes': (number);
  'otherOps': (number);
  'readMs': (number);
  'writeMs': (number);
  'otherMs': (number);
  'errors': (number);
}
