// Original file: proto/stripefs/v1/stripefs.proto

import type { Long } from '@grpc/proto-loader';

export interface OstHealth {
  'ostId'?: (number);
  'usedBytes'?: (number | string | Long);
  'totalBytes'?: (number | string | Long);
  'objectCount'?: (number | string | Long);
  'readLatencyMsP50'?: (number | string);
  'writeLatencyMsP50'?: (number | string);
  'errors'?: (number | string | Long);
  'checksumErrors'?: (number | string | Long);
  'readSamples'?: (number);
  'writeSamples'?: (number);
  'readBytes'?: (number | string | Long);
  'writeBytes'?: (number | string | Long);
  'readOps'?: (number | string | Long);
  'writeOps'?: (number | string | Long);
}

export interface OstHealth__Output {
  'ostId': (number);
  'usedBytes': (number);
  'totalBytes': (number);
  'objectCount': (number);
  'readLatencyMsP50': (number);
  'writeLatencyMsP50': (number);
  'errors': (number);
  'checksumErrors': (number);
  'readSamples': (number);
  'writeSamples': (number);
  'readBytes': (number);
  'writeBytes': (number);
  'readOps': (number);
  'writeOps': (number);
}
