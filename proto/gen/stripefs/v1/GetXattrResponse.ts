// Original file: proto/stripefs/v1/stripefs.proto


export interface GetXattrResponse {
  'value'?: (Buffer | Uint8Array | string);
}

export interface GetXattrResponse__Output {
  'value': (Buffer);
}
