// Original file: proto/stripefs/v1/stripefs.proto


export interface AuthAddRequest {
  'name'?: (string);
  'storedKey'?: (Buffer | Uint8Array | string);
  'caps'?: (string);
  'admin'?: (boolean);
  'allow'?: (string)[];
  'service'?: (boolean);
}

export interface AuthAddRequest__Output {
  'name': (string);
  'storedKey': (Buffer);
  'caps': (string);
  'admin': (boolean);
  'allow': (string)[];
  'service': (boolean);
}
