// Original file: proto/stripefs/v1/stripefs.proto

import type { AuditReport as _stripefs_v1_AuditReport, AuditReport__Output as _stripefs_v1_AuditReport__Output } from '../../stripefs/v1/AuditReport.js';

export interface ReportAuditRequest {
  'reports'?: (_stripefs_v1_AuditReport)[];
  'dropped'?: (number);
}

export interface ReportAuditRequest__Output {
  'reports': (_stripefs_v1_AuditReport__Output)[];
  'dropped': (number);
}
