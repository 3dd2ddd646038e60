// Original file: proto/stripefs/v1/stripefs.proto


export interface MarkStaleResponse {
  'marked'?: (number);
}

export interface MarkStaleResponse__Output {
  'marked': (number);
}
