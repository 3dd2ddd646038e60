// Original file: proto/stripefs/v1/stripefs.proto


export interface AuthRemoveRequest {
  'name'?: (string);
}

export interface AuthRemoveRequest__Output {
  'name': (string);
}
