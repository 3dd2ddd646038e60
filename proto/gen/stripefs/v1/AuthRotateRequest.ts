// Original file: proto/stripefs/v1/stripefs.proto


export interface AuthRotateRequest {
  'name'?: (string);
  'storedKey'?: (Buffer | Uint8Array | string);
}

export interface AuthRotateRequest__Output {
  'name': (string);
  'storedKey': (Buffer);
}
