// Original file: proto/stripefs/v1/stripefs.proto


export interface ReadlinkRequest {
  'path'?: (string);
}

export interface ReadlinkRequest__Output {
  'path': (string);
}
