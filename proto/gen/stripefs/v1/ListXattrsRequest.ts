// Original file: proto/stripefs/v1/stripefs.proto


export interface ListXattrsRequest {
  'path'?: (string);
}

export interface ListXattrsRequest__Output {
  'path': (string);
}
