// Original file: proto/stripefs/v1/stripefs.proto


export interface ScrubFinding {
  'objectId'?: (string);
  'ostId'?: (number);
  'position'?: (number);
  'problem'?: (string);
  'detail'?: (string);
  'fixed'?: (boolean);
}

export interface ScrubFinding__Output {
  'objectId': (string);
  'ostId': (number);
  'position': (number);
  'problem': (string);
  'detail': (string);
  'fixed': (boolean);
}
