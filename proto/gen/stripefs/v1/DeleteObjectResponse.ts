// Original file: proto/stripefs/v1/stripefs.proto


export interface DeleteObjectResponse {
  'existed'?: (boolean);
}

export interface DeleteObjectResponse__Output {
  'existed': (boolean);
}
