// Original file: proto/stripefs/v1/stripefs.proto


export interface PingRequest {
  'payload'?: (string);
}

export interface PingRequest__Output {
  'payload': (string);
}
