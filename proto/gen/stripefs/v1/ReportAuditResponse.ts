// Original file: proto/stripefs/v1/stripefs.proto


export interface ReportAuditResponse {
}

export interface ReportAuditResponse__Output {
}
