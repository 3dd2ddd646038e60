// Original file: proto/stripefs/v1/stripefs.proto


export interface ReadAuditRequest {
  'limit'?: (number);
  'contains'?: (string);
  'identity'?: (string);
  'op'?: (string);
  'result'?: (string);
}

export interface ReadAuditRequest__Output {
  'limit': (number);
  'contains': (string);
  'identity': (string);
  'op': (string);
  'result': (string);
}
