// Original file: proto/stripefs/v1/stripefs.proto


export interface ReadlinkResponse {
  'target'?: (string);
}

export interface ReadlinkResponse__Output {
  'target': (string);
}
