// Original file: proto/stripefs/v1/stripefs.proto


export interface ListXattrsResponse {
  'names'?: (string)[];
}

export interface ListXattrsResponse__Output {
  'names': (string)[];
}
