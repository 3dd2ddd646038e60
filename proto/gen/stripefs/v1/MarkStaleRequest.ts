// Original file: proto/stripefs/v1/stripefs.proto


export interface MarkStaleRequest {
  'ostId'?: (number);
  'objectIds'?: (string)[];
}

export interface MarkStaleRequest__Output {
  'ostId': (number);
  'objectIds': (string)[];
}
