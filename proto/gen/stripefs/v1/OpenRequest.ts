// Original file: proto/stripefs/v1/stripefs.proto


export interface OpenRequest {
  'path'?: (string);
}

export interface OpenRequest__Output {
  'path': (string);
}
