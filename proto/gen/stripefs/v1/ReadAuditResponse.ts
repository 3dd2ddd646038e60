// Original file: proto/stripefs/v1/stripefs.proto


export interface ReadAuditResponse {
  'lines'?: (string)[];
}

export interface ReadAuditResponse__Output {
  'lines': (string)[];
}
