// Original file: proto/stripefs/v1/stripefs.proto


export interface RemoveXattrRequest {
  'path'?: (string);
  'name'?: (string);
}

export interface RemoveXattrRequest__Output {
  'path': (string);
  'name': (string);
}
