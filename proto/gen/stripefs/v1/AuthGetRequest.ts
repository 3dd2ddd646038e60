// Original file: proto/stripefs/v1/stripefs.proto


export interface AuthGetRequest {
  'name'?: (string);
}

export interface AuthGetRequest__Output {
  'name': (string);
}
