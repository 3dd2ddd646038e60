// Original file: proto/stripefs/v1/stripefs.proto


export interface StatManyRequest {
  'paths'?: (string)[];
}

export interface StatManyRequest__Output {
  'paths': (string)[];
}
