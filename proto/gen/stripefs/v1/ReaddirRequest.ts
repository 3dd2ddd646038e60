// Original file: proto/stripefs/v1/stripefs.proto


export interface ReaddirRequest {
  'path'?: (string);
  'cursor'?: (string);
  'limit'?: (number);
  'withAttrs'?: (boolean);
}

export interface ReaddirRequest__Output {
  'path': (string);
  'cursor': (string);
  'limit': (number);
  'withAttrs': (boolean);
}
