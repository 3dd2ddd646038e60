// Original file: proto/stripefs/v1/stripefs.proto


export interface StatRequest {
  'path'?: (string);
}

export interface StatRequest__Output {
  'path': (string);
}
