// Original file: proto/stripefs/v1/stripefs.proto


export interface RmdirRequest {
  'path'?: (string);
}

export interface RmdirRequest__Output {
  'path': (string);
}
