// Original file: proto/stripefs/v1/stripefs.proto


export interface MapBucket {
  'id'?: (number);
  'name'?: (string);
  'type'?: (string);
  'children'?: (number)[];
}

export interface MapBucket__Output {
  'id': (number);
  'name': (string);
  'type': (string);
  'children': (number)[];
}
