// Original file: proto/stripefs/v1/stripefs.proto


export interface RegisteredOst {
  'name'?: (string);
  'id'?: (number);
}

export interface RegisteredOst__Output {
  'name': (string);
  'id': (number);
}
