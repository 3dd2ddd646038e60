// Original file: proto/stripefs/v1/stripefs.proto


export interface GetXattrRequest {
  'path'?: (string);
  'name'?: (string);
}

export interface GetXattrRequest__Output {
  'path': (string);
  'name': (string);
}
