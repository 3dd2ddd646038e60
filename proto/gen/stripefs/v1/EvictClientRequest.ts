// Original file: proto/stripefs/v1/stripefs.proto


export interface EvictClientRequest {
  'id'?: (string);
}

export interface EvictClientRequest__Output {
  'id': (string);
}
