// Original file: proto/stripefs/v1/stripefs.proto


export interface ItemError {
  'code'?: (string);
  'message'?: (string);
  'detailsJson'?: (string);
}

export interface ItemError__Output {
  'code': (string);
  'message': (string);
  'detailsJson': (string);
}
