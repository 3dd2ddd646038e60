// Original file: proto/stripefs/v1/stripefs.proto


export interface AuditReport {
  'identity'?: (string);
  'address'?: (string);
  'op'?: (string);
  'paths'?: (string)[];
  'result'?: (string);
  'door'?: (string);
}

export interface AuditReport__Output {
  'identity': (string);
  'address': (string);
  'op': (string);
  'paths': (string)[];
  'result': (string);
  'door': (string);
}
