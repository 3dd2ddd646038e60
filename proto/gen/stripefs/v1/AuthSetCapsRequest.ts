// Original file: proto/stripefs/v1/stripefs.proto


export interface AuthSetCapsRequest {
  'name'?: (string);
  'caps'?: (string);
  'admin'?: (boolean);
  'allow'?: (string)[];
  'service'?: (boolean);
}

export interface AuthSetCapsRequest__Output {
  'name': (string);
  'caps': (string);
  'admin': (boolean);
  'allow': (string)[];
  'service': (boolean);
}
