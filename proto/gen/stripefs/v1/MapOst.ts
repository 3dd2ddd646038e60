// Original file: proto/stripefs/v1/stripefs.proto

import type { OstState as _stripefs_v1_OstState, OstState__Output as _stripefs_v1_OstState__Output } from '../../stripefs/v1/OstState.js';
import type { Long } from '@grpc/proto-loader';

export interface MapOst {
  'id'?: (number);
  'name'?: (string);
  'weight'?: (number | string);
  'state'?: (_stripefs_v1_OstState | null);
  'host'?: (string);
  'rack'?: (string);
  'datacenter'?: (string);
  'ossId'?: (string);
  'grpcAddress'?: (string);
  'bulkAddress'?: (string);
  'usedBytes'?: (number | string | Long);
  'totalBytes'?: (number | string | Long);
  'adminAddress'?: (string);
  'publicGrpcAddress'?: (string);
  'publicBulkAddress'?: (string);
  'publicAdminAddress'?: (string);
}

export interface MapOst__Output {
  'id': (number);
  'name': (string);
  'weight': (number);
  'state': (_stripefs_v1_OstState__Output | null);
  'host': (string);
  'rack': (string);
  'datacenter': (string);
  'ossId': (string);
  'grpcAddress': (string);
  'bulkAddress': (string);
  'usedBytes': (number);
  'totalBytes': (number);
  'adminAddress': (string);
  'publicGrpcAddress': (string);
  'publicBulkAddress': (string);
  'publicAdminAddress': (string);
}
