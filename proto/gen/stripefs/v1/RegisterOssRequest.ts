// Original file: proto/stripefs/v1/stripefs.proto

import type { OstAnnounce as _stripefs_v1_OstAnnounce, OstAnnounce__Output as _stripefs_v1_OstAnnounce__Output } from '../../stripefs/v1/OstAnnounce.js';

export interface RegisterOssRequest {
  'ossId'?: (string);
  'host'?: (string);
  'rack'?: (string);
  'datacenter'?: (string);
  'grpcAddress'?: (string);
  'bulkAddress'?: (string);
  'adminAddress'?: (string);
  'osts'?: (_stripefs_v1_OstAnnounce)[];
  'publicGrpcAddress'?: (string);
  'publicBulkAddress'?: (string);
  'publicAdminAddress'?: (string);
}

export interface RegisterOssRequest__Output {
  'ossId': (string);
  'host': (string);
  'rack': (string);
  'datacenter': (string);
  'grpcAddress': (string);
  'bulkAddress': (string);
  'adminAddress': (string);
  'osts': (_stripefs_v1_OstAnnounce__Output)[];
  'publicGrpcAddress': (string);
  'publicBulkAddress': (string);
  'publicAdminAddress': (string);
}
