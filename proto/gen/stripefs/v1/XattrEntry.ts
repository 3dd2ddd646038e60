// Original file: proto/stripefs/v1/stripefs.proto


export interface XattrEntry {
  'name'?: (string);
  'value'?: (Buffer | Uint8Array | string);
}

export interface XattrEntry__Output {
  'name': (string);
  'value': (Buffer);
}
